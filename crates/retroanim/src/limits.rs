//! Resource limits: what a header may ask for before anything is allocated.
//!
//! Every count read from a file is first checked against the bytes actually left in the input
//! (see [`crate::bytes::Reader::count`]); limits are a second, caller-controlled bound on top of
//! that, for inputs that are large but legitimate-looking.

use crate::error::{Error, Result};

/// Upper bounds on what a file may make retroanim allocate or do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest number of items (frames, packets, points, ...) one count may ask for.
    pub max_items: u64,
    /// Largest number of bytes one decoded buffer may take.
    pub max_bytes: u64,
    /// Largest number of steps a pointer chain or playback loop may take.
    pub max_steps: u64,
    /// Largest input, in bytes, a caller reading a whole file or stream should accept (the
    /// CLI stops reading there, so devices and endless pipes fail fast).
    pub max_input_bytes: u64,
    /// Largest number of bytes an imported scene's vertex data may take once every use of
    /// shared data is its own copy (a glTF accessor read by many primitives, a mesh shown by
    /// many nodes): what the console formats written from it hold.
    pub max_expanded_bytes: u64,
    /// Largest number of nodes an imported scene may have.
    pub max_scene_nodes: u64,
    /// Largest number of pixels one image may declare (width × height, from its header,
    /// checked before anything is decoded).
    pub max_image_pixels: u64,
    /// Largest drawing work of one `render` (pixels visited by the rasterizer plus polygons
    /// set up, summed over every picture of an animation).
    pub max_render_work: u64,
    /// Largest drawing work of one preview picture of a report (as [`Limits::max_render_work`]).
    pub max_preview_work: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_items: 1 << 26,
            max_bytes: 1 << 31,
            max_steps: 1 << 24,
            max_input_bytes: 1 << 28,
            max_expanded_bytes: 1 << 26,
            max_scene_nodes: 1 << 17,
            max_image_pixels: 1 << 24,
            max_render_work: 1 << 31,
            max_preview_work: 1 << 27,
        }
    }
}

impl Limits {
    /// No limits beyond the size of the input itself.
    pub fn none() -> Self {
        Limits {
            max_items: u64::MAX,
            max_bytes: u64::MAX,
            max_steps: u64::MAX,
            max_input_bytes: u64::MAX,
            max_expanded_bytes: u64::MAX,
            max_scene_nodes: u64::MAX,
            max_image_pixels: u64::MAX,
            max_render_work: u64::MAX,
            max_preview_work: u64::MAX,
        }
    }

    /// Checks a count of items against [`Limits::max_items`]. `offset` is the absolute byte
    /// offset of the field that asked (`None` for a caller's own request); the error carries it.
    pub fn items(&self, offset: impl Into<Option<u64>>, what: &str, requested: u64) -> Result<()> {
        check(offset.into(), what, requested, self.max_items)
    }

    /// Checks a byte size against [`Limits::max_bytes`].
    pub fn bytes(&self, offset: impl Into<Option<u64>>, what: &str, requested: u64) -> Result<()> {
        check(offset.into(), what, requested, self.max_bytes)
    }

    /// Checks an input's size against [`Limits::max_input_bytes`].
    pub fn input(&self, offset: impl Into<Option<u64>>, what: &str, requested: u64) -> Result<()> {
        check(offset.into(), what, requested, self.max_input_bytes)
    }

    /// Checks a number of steps against [`Limits::max_steps`].
    pub fn steps(&self, offset: impl Into<Option<u64>>, what: &str, requested: u64) -> Result<()> {
        check(offset.into(), what, requested, self.max_steps)
    }
}

/// A named budget: `what` (with the field's name, `max_…`, so the error says which limit to
/// raise) against `limit`.
pub(crate) fn budget(what: &str, field: &str, requested: u64, limit: u64) -> Result<()> {
    check(None, &format!("{what} ({field})"), requested, limit)
}

fn check(offset: Option<u64>, what: &str, requested: u64, limit: u64) -> Result<()> {
    if requested > limit {
        Err(Error::LimitExceeded {
            offset,
            what: what.to_string(),
            requested,
            limit,
        })
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_exceeded_names_the_request() {
        let l = Limits {
            max_items: 10,
            ..Limits::default()
        };
        assert!(l.items(8, "frames", 10).is_ok());
        let e = l.items(8, "frames", 11).unwrap_err();
        assert_eq!(
            e.to_string(),
            "limit exceeded at byte 8 (0x8): frames asks for 11, the limit is 10"
        );
        assert_eq!(e.offset(), Some(8));
        let e = l.items(None, "frames", 11).unwrap_err();
        assert_eq!(
            e.to_string(),
            "limit exceeded: frames asks for 11, the limit is 10"
        );
    }
}
