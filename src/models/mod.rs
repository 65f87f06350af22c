//! One module per paper. Each opens with the section, equations and units it
//! implements, reads what it needs from the scenario and says what is missing.

pub mod cynthia;
pub mod loss_fit;
pub mod zeng;
