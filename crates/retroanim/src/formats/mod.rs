//! One module per format: its layout table, faithful types, reader, writer and validation.

pub mod clt;
mod flat_lights;
pub mod gte;
pub mod hmd;
mod json_f32;
pub(crate) mod lzo;
pub mod mdd;
pub mod mime;
pub mod p3d;
pub mod pc2;
pub mod pmd;
pub mod pxl;
pub mod rsd;
pub mod rtm;
mod stream;
pub mod texpage;
pub mod tim;
pub mod tmd;
pub mod tod;

/// `serde` helper: skip a field that holds its type's default value.
pub(crate) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}
