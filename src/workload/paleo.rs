//! (helper fills this in)
