//! Writing a pointer's sequences: each track's keys as key-frame descriptors (equal key frames
//! stored once in the parameter section), then END, or the jump back of a loop.

#![allow(clippy::needless_range_loop)] // poses are indexed as x, y, z of each part

use crate::error::Result;
use crate::scene::Animation;

use super::super::super::cat3_anim::{
    InterpolationType, KeyFrame, Method, ParameterItem, SequenceDescriptor, CONTROL_END,
};
use super::super::unencodable;
use super::NodeTrack;
use arrayvec::ArrayVec;

/// Key `i` of `track` as type `code` (the track's type, or the parts of it one of several
/// pointers on the coordinate sets) lays it out.
fn key_frame(track: &NodeTrack, i: usize, code: u32) -> Option<KeyFrame> {
    let code = if track.scaled { code } else { code & !0xF00 };
    key_frame_of(&track.keys[i].pose, &track.controls[i], code)
}

/// A key frame of type `code` holding `pose` (translation, angles, scale ×4096) and, for a
/// Bezier part (its 16-bit translation too: nibble 0xA), the control points `p1`, `p2`; `None`
/// when a value does not fit.
pub(super) fn key_frame_of(
    pose: &[f64; 9],
    (p1, p2): &([f64; 9], [f64; 9]),
    code: u32,
) -> Option<KeyFrame> {
    let t_code = code & 0xF;
    let r_code = (code >> 4) & 0xF;
    let s_code = (code >> 8) & 0xF;
    let mut translation = ArrayVec::<i32, 9>::new();
    let mut rotation = ArrayVec::<i16, 9>::new();
    let mut scale = ArrayVec::<i16, 9>::new();
    let points = |code: u32| -> Vec<&[f64; 9]> {
        match code {
            0 => vec![],
            _ if bezier(code) => vec![pose, p1, p2],
            _ => vec![pose],
        }
    };
    for p in points(t_code) {
        for q in 0..3 {
            translation.try_push(p[q].round() as i32).ok()?;
        }
    }
    for p in points(r_code) {
        for q in 3..6 {
            rotation
                .try_push(p[q].round().clamp(-32768.0, 32767.0) as i16)
                .ok()?;
        }
    }
    for p in points(s_code) {
        for q in 6..9 {
            scale
                .try_push(p[q].round().clamp(-32768.0, 32767.0) as i16)
                .ok()?;
        }
    }
    Some(KeyFrame::Coordinate {
        translation,
        rotation,
        scale,
        pad: 0,
    })
}

/// Whether a part's interpolation nibble is Bezier (2, or 0xA for a 16-bit translation).
pub(super) fn bezier(nibble: u32) -> bool {
    method(nibble) == Some(Method::Bezier)
}

/// Whether a part's interpolation nibble is a B-spline (3, or 0xB for a 16-bit translation).
pub(super) fn bspline(nibble: u32) -> bool {
    method(nibble) == Some(Method::BSpline)
}

fn method(nibble: u32) -> Option<Method> {
    u8::try_from(nibble)
        .ok()
        .and_then(InterpolationType::method)
}

/// Where the sequences being written go.
pub(super) struct Out<'a> {
    pub types: &'a mut Vec<u32>,
    pub descriptors: &'a mut Vec<SequenceDescriptor>,
    pub params: &'a mut Vec<ParameterItem>,
    pub param_words: &'a mut usize,
    /// Key frames already in the parameter section, by type and words.
    pub stored: &'a mut std::collections::HashMap<(u32, Vec<u32>), u16>,
}

/// Writes the sequences of one pointer on coordinate `node`: one per (animation index into
/// `anims`, track) of `tracks`, in that order, with the parts of each track's type word `keep`
/// keeps; returns (animation, START IDX or extra sequence start) of each.
pub(super) fn sequences_of(
    tracks: &[(usize, &NodeTrack)],
    anims: &[&Animation],
    (node, keep): (usize, u32),
    out: &mut Out<'_>,
) -> Result<Vec<(usize, u16)>> {
    let mut starts: Vec<(usize, u16)> = Vec::with_capacity(tracks.len());
    for (pos, &(k, track)) in tracks.iter().enumerate() {
        let Some(a) = anims.get(k) else {
            continue;
        };
        let code = track.code & keep;
        let type_idx = type_index(out.types, code)?;
        let start = out.descriptors.len();
        let mut last_param = 0u16;
        let mut anchor = None;
        for i in 0..track.keys.len() {
            let index = store(out, code, key_frame(track, i, code), || {
                format!("animation {:?}, node {node}: key {i}", a.name)
            })?;
            let tframe = match i {
                0 => 0,
                _ if track.keys[i].instant => 0,
                _ => track.keys[i].frame - track.keys[i - 1].frame,
            };
            out.descriptors.push(SequenceDescriptor::KeyFrame {
                type_idx,
                tframe: u8::try_from(tframe).unwrap_or(u8::MAX),
                param_idx: index,
            });
            last_param = index;
            // A loop's start: the same key once more with TFRAME 0, which the jump at the
            // end returns to (reached at once, it sets the start's angles again, whatever
            // turns the loop's angles added).
            let loop_start = track.loop_from == Some(track.keys[i].frame)
                && track
                    .keys
                    .get(i + 1)
                    .map_or(true, |n| n.frame > track.keys[i].frame);
            if loop_start && anchor.is_none() && i + 1 < track.keys.len() {
                anchor = Some(out.descriptors.len());
                out.descriptors.push(SequenceDescriptor::KeyFrame {
                    type_idx,
                    tframe: 0,
                    param_idx: index,
                });
            }
        }
        match anchor {
            Some(at) => {
                let seq_idx = u16::try_from(at).map_err(|_| {
                    unencodable(format!(
                        "animation {:?}, node {node}: the loop starts at descriptor {at}, past 65535 (a jump's index is 16 bits)",
                        a.name
                    ))
                })?;
                out.descriptors.push(SequenceDescriptor::Jump {
                    sid_dst: 0,
                    sid_cnd: 0,
                    seq_idx,
                });
            }
            None => end_sequence(out.descriptors, type_idx, last_param),
        }
        // START IDX is 16 bits, an extra sequence's start a signed 16-bit value.
        let limit = if pos == 0 { 0xFFFF } else { 0x7FFF };
        let start = u16::try_from(start).ok().filter(|&s| s <= limit).ok_or_else(|| {
            unencodable(format!(
                "animation {:?} (sequence {k}), node {node}: the sequence starts at descriptor {start}, past {limit} ({}); fewer keys or shorter animations fit",
                a.name,
                if pos == 0 { "START IDX is 16 bits" } else { "an extra sequence's start is a signed 16-bit index" }
            ))
        })?;
        starts.push((k, start));
    }
    Ok(starts)
}

/// The PARAMETER IDX of key frame `frame` of type `code` (`None`: its values do not fit the
/// type, [`key_frame_of`]): equal key frames (of one type) are stored once. `what` names the
/// key in errors.
pub(super) fn store(
    out: &mut Out<'_>,
    code: u32,
    frame: Option<KeyFrame>,
    what: impl Fn() -> String,
) -> Result<u16> {
    place(out, code, frame, &what, true)
}

/// [`store`] without sharing: a key frame of its own even where an equal one is stored, as
/// the B-spline driver's WORK history tells key frames apart by index.
pub(super) fn store_own(
    out: &mut Out<'_>,
    code: u32,
    frame: Option<KeyFrame>,
    what: impl Fn() -> String,
) -> Result<u16> {
    place(out, code, frame, &what, false)
}

/// A B-spline WORK area (four words, null as in files) at the end of the parameter section:
/// its word offset.
pub(super) fn work_area(out: &mut Out<'_>, what: impl Fn() -> String) -> Result<u16> {
    let index = end_of_params(out, 4, &what)?;
    out.params.push(ParameterItem::Work {
        index,
        words: [0; 4],
    });
    Ok(index)
}

/// The word offset of `words` more words at the end of the parameter section.
fn end_of_params(out: &mut Out<'_>, words: usize, what: &dyn Fn() -> String) -> Result<u16> {
    let index = u16::try_from(*out.param_words).map_err(|_| {
        unencodable(format!(
            "{}: the parameter section passes 65 535 words (PARAMETER IDX is 16 bits); fewer keys or nodes fit",
            what()
        ))
    })?;
    *out.param_words += words;
    Ok(index)
}

fn place(
    out: &mut Out<'_>,
    code: u32,
    frame: Option<KeyFrame>,
    what: &dyn Fn() -> String,
    share: bool,
) -> Result<u16> {
    let layout = InterpolationType::from_code(code)
        .layout()
        .ok_or_else(|| unencodable(format!("type 0x{code:08x} has no layout")))?;
    let mut words = Vec::with_capacity(layout.words());
    let frame = frame
        .filter(|f| f.encode(layout, &mut words).is_some())
        .ok_or_else(|| unencodable(format!("{} does not fit its layout", what())))?;
    if let Some(&at) = share
        .then(|| out.stored.get(&(code, words.clone())))
        .flatten()
    {
        return Ok(at);
    }
    let index = end_of_params(out, layout.words(), what)?;
    out.params.push(ParameterItem::KeyFrame {
        index,
        type_code: code,
        frame,
    });
    if share {
        out.stored.insert((code, words), index);
    }
    Ok(index)
}

/// The index of interpolation type `code` in `types` (appended when it is not there yet): a
/// key frame's TYPE IDX is 7 bits, so at most 128 types.
pub(super) fn type_index(types: &mut Vec<u32>, code: u32) -> Result<u8> {
    let i = match types.iter().position(|&t| t == code) {
        Some(i) => i,
        None => {
            types.push(code);
            types.len() - 1
        }
    };
    u8::try_from(i)
        .ok()
        .filter(|&i| i < 0x80)
        .ok_or_else(|| unencodable("more than 128 interpolation types"))
}

/// The last key once more (TFRAME 1), so that it is reached; then END.
pub(super) fn end_sequence(
    descriptors: &mut Vec<SequenceDescriptor>,
    type_idx: u8,
    last_param: u16,
) {
    descriptors.push(SequenceDescriptor::KeyFrame {
        type_idx,
        tframe: 1,
        param_idx: last_param,
    });
    descriptors.push(SequenceDescriptor::Control {
        code: CONTROL_END,
        p1: 0,
        p2: 0,
    });
}
