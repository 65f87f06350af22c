//! The shared workload description: a network (layer table or given
//! figures) that every model reads what it needs from.

pub mod layer;
pub mod listing;
pub mod loss_fit;
pub mod network;
pub mod paleo;
pub mod presets;
pub mod profile;
pub mod profile_io;
pub mod profile_presets;
pub mod table;
pub(crate) mod text;

pub use layer::{Layer, LayerKind};
pub use network::{GivenFigures, IgnoredLayer, Network, NetworkSummary};
/// The CSV readers' error, named here since `text` is the crate's own.
pub use text::CsvError;
