//! Importers into the neutral [`crate::scene::Scene`]: what the glTF exporter writes from.
//!
//! - [`psx`]: PlayStation TMD models (with TIM textures) and TOD animations played by the
//!   PsyQ TOD player.

pub mod psx;
pub(crate) mod world_exact;
