//! MIMe differences (VDF, NDF) → pictures: the base TMD ([`RenderOptions::tmd`]) with the
//! differences played as the console plays them ([`mime::play`]: `gteMIMefunc`'s fixed-point
//! arithmetic), then drawn as any TMD is.
//!
//! | weights | pictures |
//! |---|---|
//! | given ([`RenderOptions::weights`], one per key, 4096 = 1.0) | one: the TMD at those weights |
//! | none | one per key: picture k is key k at 4096 (the others 0), i.e. the variant MIMEFILT made key k from; `frames` picks keys, [`KEY_FPS`] pictures per second by default |
//!
//! Every picture has the same camera, framing the model at every weighting drawn, as a TOD's
//! frames share one. A VDF moves vertices, an NDF turns normals (the shape stays, its lighting
//! changes); the file of the other kind from the same MIMEFILT run
//! ([`RenderOptions::mime_partner`]: a VDF's NDF, an NDF's VDF) plays with the same weights,
//! as the console plays both.

use crate::error::{Error, Result};
use crate::formats::gte::Mat;
use crate::formats::mime::{self, Diff};
use crate::formats::tmd::author::Counts;
use crate::formats::tmd::Tmd;
use crate::Format;

use super::encode::encode_frames;
use super::file::{option, refuse, vram_of, RenderOptions, Rendered, MAX_FRAMES};
use super::{draw_tmd_within, front_area, tmd_bounds, with_yaw, Budget, Camera, Instance};

/// Pictures per second of the one-picture-per-key drawing (each key shown half a second).
pub const KEY_FPS: f64 = 2.0;

/// `base` with a VDF played at `weights` onto its vertices and an NDF onto its normals.
pub fn played(base: &Tmd, vdf: Option<&Diff>, ndf: Option<&Diff>, weights: &[i32]) -> Tmd {
    let mut t = base.clone();
    if let Some(d) = vdf {
        for (o, v) in t
            .objects
            .iter_mut()
            .zip(mime::play_on(d, base, false, weights))
        {
            o.vertices = v;
        }
    }
    if let Some(d) = ndf {
        for (o, v) in t
            .objects
            .iter_mut()
            .zip(mime::play_on(d, base, true, weights))
        {
            o.normals = v;
        }
    }
    t
}

/// The pictures of a VDF (`format` [`Format::Vdf`]) or NDF on its base (module table).
pub(super) fn render(d: &Diff, format: Format, opts: &RenderOptions) -> Result<Rendered> {
    let what = format!("a {format}");
    refuse(opts, &what, &["sequence", "stream-id", "lod"])?;
    let Some(base) = &opts.tmd else {
        return Err(option(
            "tmd",
            format!("a {format} holds MIMe differences against a base TMD: give it with --tmd"),
        ));
    };
    let other = if format == Format::Ndf {
        Format::Vdf
    } else {
        Format::Ndf
    };
    mime::check_against(d, base, format)?;
    if let Some(p) = &opts.mime_partner {
        mime::check_against(p, base, other)?;
    }
    let (vdf, ndf) = match format {
        Format::Ndf => (opts.mime_partner.as_ref(), Some(d)),
        _ => (Some(d), opts.mime_partner.as_ref()),
    };
    // Keys past the shorter file move only what the longer one changes.
    let keys = d
        .blocks
        .len()
        .max(opts.mime_partner.as_ref().map_or(0, |p| p.blocks.len()));
    let weighted: Vec<Vec<i32>> = match &opts.weights {
        Some(w) => {
            refuse(opts, "a weighted drawing (one picture)", &["frames", "fps"])?;
            if w.len() != keys {
                return Err(option(
                    "weights",
                    format!("{} weights, but the {format} has {keys} keys", w.len()),
                ));
            }
            vec![w.clone()]
        }
        None => {
            let (start, end) = opts.frames.unwrap_or((0, keys as u32));
            if start >= end || start as usize >= keys {
                return Err(option(
                    "frames",
                    format!("{start}..{end}: the {format}'s keys are 0..{keys}"),
                ));
            }
            let mut end = (end as usize).min(keys);
            if let Some(p) = opts.preview {
                end = end.min(start as usize + p.max_pictures.max(1));
            }
            if end - start as usize > MAX_FRAMES {
                return Err(Error::LimitExceeded {
                    offset: None,
                    what: "pictures in one drawing of MIMe keys".into(),
                    requested: (end - start as usize) as u64,
                    limit: MAX_FRAMES as u64,
                });
            }
            (start as usize..end)
                .map(|k| {
                    let mut w = vec![0; keys];
                    w[k] = 4096;
                    w
                })
                .collect()
        }
    };
    let fps = match opts.weights {
        Some(_) => 1.0,
        None => opts.fps.or(opts.preview.map(|p| p.fps)).unwrap_or(KEY_FPS),
    };
    if !(fps.is_finite() && fps > 0.0 && fps <= 240.0) {
        return Err(option("fps", format!("{fps}: must be in (0, 240]")));
    }
    let shown: Vec<Instance> = (0..base.objects.len())
        .map(|i| (i, Mat::IDENTITY))
        .collect();
    // One camera for every picture: the bounds of every weighting drawn.
    let bounds = super::union_bounds(weighted.iter().map(|w| {
        let t = vdf.map(|v| played(base, Some(v), None, w));
        tmd_bounds(t.as_ref().unwrap_or(base), &shown)
    }));
    let vram = vram_of(&opts.tims);
    let first = played(base, vdf, ndf, &weighted[0]);
    let view = with_yaw(&opts.view, |v| {
        front_area(&first, &shown, &vram, &Camera::frame(bounds, v))
    });
    drop(first);
    let camera = Camera::frame(bounds, &view);
    let mut counts = Counts::default();
    let mut budget = Budget::of(opts, weighted.len());
    let bytes = encode_frames(
        opts.output,
        (view.width, view.height),
        weighted.len(),
        fps,
        |k| {
            let t = played(base, vdf, ndf, &weighted[k]);
            let (fb, notes) = draw_tmd_within(&t, &shown, &vram, (&camera, &view), &mut budget)?;
            for n in notes {
                counts.add(n.code, 1, || format!("pictures where {}", n.message));
            }
            Ok(fb.to_rgba())
        },
    )?;
    Ok(Rendered {
        bytes,
        frames: weighted.len(),
        notes: counts.finish(),
    })
}
