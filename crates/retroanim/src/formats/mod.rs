//! One module per format: its layout table, faithful types, reader, writer and validation.

pub mod gte;
pub mod hmd;
pub mod mdd;
pub mod pc2;
mod stream;
pub mod tod;

/// `serde` helper: skip a field that holds its type's default value.
pub(crate) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}
