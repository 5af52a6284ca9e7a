//! Playback: TOD, MIMe, RTM and HMD played by the library, handed back as the JSON (or the
//! plain lists) `play --json` prints.

use pyo3::prelude::*;
use retroanim::formats::{hmd, tod};

use crate::*;

/// Plays a TOD (after `after`, driving `tmd`) and returns the JSON `play --json` prints.
/// `last = None` plays to the end (refused past the playback limit, as the CLI does).
#[pyfunction]
#[pyo3(signature = (model, tmd, after, first, last))]
pub(crate) fn play_tod(
    py: Python<'_>,
    model: &PyModel,
    tmd: Option<PyRef<'_, PyModel>>,
    after: Vec<PyRef<'_, PyModel>>,
    first: u32,
    last: Option<u32>,
) -> PyResult<Py<PyAny>> {
    let retroanim::Model::Tod(anim) = &model.inner else {
        return Err(option_error("model", "play_tod needs a TOD"));
    };
    let tmd = tmd.as_deref().map(tmd_of).transpose()?;
    let before = tods_of(&after)?;
    let mut player = tod::Player::after(&before, anim, tmd.as_ref());
    if last.is_none() {
        player
            .check_walk(first, None, &Limits::default())
            .map_err(to_py)?;
    }
    let last = last.unwrap_or(u32::MAX);
    player.seek(first);
    let mut poses = Vec::new();
    while player.frame() <= last {
        if player.frame() >= first {
            poses.push(player.pose());
        }
        if !player.advance() {
            break;
        }
    }
    let out = serde_json::json!({
        "resolution": anim.header.resolution,
        "seconds_per_frame": anim.ticks_per_frame() as f64 / 60.0,
        "frames": poses,
        "notes": player.notes(),
    });
    json_of(py, &out)
}

/// Plays MIMe differences (a VDF or NDF `model`) onto `tmd` with one weight per key (4096 =
/// 1.0), as `play DIFF --tmd BASE --weights` does (`retroanim::formats::mime::play`): per
/// object, its vertices (an NDF: normals) as `[x, y, z]`. A block that does not fit the TMD is
/// a `MalformedError` naming its offset.
#[pyfunction]
pub(crate) fn play_mime(
    model: &PyModel,
    tmd: &PyModel,
    weights: Vec<i32>,
) -> PyResult<Vec<Vec<[i16; 3]>>> {
    use retroanim::formats::mime;
    let (d, format) = match &model.inner {
        retroanim::Model::Vdf(d) => (d, Format::Vdf),
        retroanim::Model::Ndf(d) => (d, Format::Ndf),
        other => {
            return Err(option_error(
                "model",
                &format!("a {} model; play_mime needs a VDF or NDF", other.format()),
            ))
        }
    };
    let base = tmd_of(tmd)?;
    mime::check_against(d, &base, format).map_err(to_py)?;
    if weights.len() != d.blocks.len() {
        return Err(option_error(
            "weights",
            &format!(
                "{} weights, but the {format} has {} keys",
                weights.len(),
                d.blocks.len()
            ),
        ));
    }
    Ok(mime::play_on(d, &base, format == Format::Ndf, &weights)
        .iter()
        .map(|o| o.iter().map(|v| [v.x, v.y, v.z]).collect())
        .collect())
}

/// Plays an RTM: every frame (or only `phase`), each bone's matrix as `play --json` prints it.
/// `skeleton`: a `model.cfg`'s text, whose skeleton places a BMTR's parent-relative bones.
#[pyfunction]
#[pyo3(signature = (model, phase=None, step=false, skeleton=None))]
pub(crate) fn play_rtm(
    py: Python<'_>,
    model: &PyModel,
    phase: Option<f32>,
    step: bool,
    skeleton: Option<String>,
) -> PyResult<Py<PyAny>> {
    use retroanim::formats::rtm::skeleton as cfg;
    let retroanim::Model::Rtm(r) = &model.inner else {
        return Err(option_error("model", "play_rtm needs an RTM"));
    };
    let skeletons = skeleton
        .map(|text| cfg::parse_model_cfg(&text))
        .transpose()
        .map_err(to_py)?;
    let names = r.bone_names();
    let chosen = match &skeletons {
        None => None,
        Some(list) => Some(cfg::best(list, &names).ok_or_else(|| {
            option_error(
                "skeleton",
                &format!(
                    "none of its {} skeletons names any of the RTM's {} bones",
                    list.len(),
                    names.len()
                ),
            )
        })?),
    };
    let (m, notes) = r.to_mlod(chosen);
    let m = &*m;
    let phases: Vec<(Option<usize>, f32)> = match phase {
        Some(p) => vec![(None, p)],
        None => m
            .frames
            .iter()
            .enumerate()
            .map(|(f, fr)| (Some(f), fr.phase))
            .collect(),
    };
    let opts = retroanim::formats::rtm::PlayOptions { with_step: step };
    let mut frames = Vec::with_capacity(phases.len());
    for (frame, p) in phases {
        let pose = retroanim::formats::rtm::pose(m, p, opts).map_err(to_py)?;
        let bones: Vec<_> = m
            .bones
            .iter()
            .zip(&pose)
            .map(|(b, mx)| serde_json::json!({ "name": b.name, "matrix": mx }))
            .collect();
        frames.push(serde_json::json!({ "frame": frame, "phase": p, "bones": bones }));
    }
    let notes: Vec<_> = notes.iter().map(|n| (n.code, &n.message)).collect();
    json_of(
        py,
        &serde_json::json!({ "displacement": m.displacement, "frames": frames, "notes": notes }),
    )
}

/// Plays an HMD as libhmd does: frames `first..=last` (default: until every sequence has
/// stopped, at most 600 frames, as the CLI does).
#[pyfunction]
#[pyo3(signature = (
    model, first, last, sequence=None, stream_id=None, speed=None, intr_idx=None, aframe=None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn play_hmd(
    py: Python<'_>,
    model: &PyModel,
    first: u64,
    last: Option<u64>,
    sequence: Option<usize>,
    stream_id: Option<u8>,
    speed: Option<f64>,
    intr_idx: Option<u16>,
    aframe: Option<u16>,
) -> PyResult<Py<PyAny>> {
    let retroanim::Model::Hmd(h) = &model.inner else {
        return Err(option_error("model", "play_hmd needs an HMD"));
    };
    if stream_id.is_some_and(|s| s > 127) {
        return Err(option_error("stream-id", "stream IDs are 0..=127"));
    }
    let speed = speed
        .map(retroanim::convert::speed_code)
        .transpose()
        .map_err(to_py)?;
    let options = hmd::PlayOptions {
        sequence,
        stream_id,
        speed,
        intr_idx,
        aframe,
        ..hmd::PlayOptions::default()
    };
    let mut player = hmd::Player::start(h, &options).map_err(to_py)?;
    let until = last.unwrap_or(599);
    let mut frames = Vec::new();
    for n in 0..=until {
        player.step().map_err(to_py)?;
        if n >= first {
            frames.push(player.frame());
        }
        if last.is_none() && player.finished() {
            break;
        }
    }
    json_of(
        py,
        &serde_json::json!({ "format": "hmd", "frames": frames }),
    )
}
