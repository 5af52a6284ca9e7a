//! The CLT/PXL conversions: PXL + palette → TIM or PNG, CLT → PNG (its colours as a picture),
//! TIM → PXL + CLT (the two halves, one as the output, the other beside it).

use super::{done_notes, option_error, Conversion, Extra, Note, OptionName as O, Options};
use crate::error::{Error, Result};
use crate::formats::{clt, pxl, tim};
use crate::{Format, Model};

/// The palette a PXL is combined with: `--clt`, else the CLUT of the first `--tim`.
fn palette(opts: &Options) -> Option<&tim::Block> {
    opts.textures
        .clt
        .as_ref()
        .map(|c| &c.clut)
        .or_else(|| opts.textures.tims.first().and_then(|t| t.clut.as_ref()))
}

/// Converts a CLT, a PXL, or a TIM to one of the two; `None` when the pair is none of these.
pub(super) fn convert(model: &Model, target: Format, opts: &Options) -> Option<Result<Conversion>> {
    let from = model.format();
    Some(match (model, target) {
        (Model::Pxl(p), Format::Tim | Format::Png) => pxl_to(p, target, opts),
        (Model::Clt(c), Format::Png) => (|| {
            opts.check(from, target, &[])?;
            // The entries as a 16-bit image: one row per CLUT, one pixel per entry.
            let t = tim::Tim {
                version: 0,
                id_reserved: 0,
                pmode: 2,
                flags_reserved: 0,
                clut: None,
                image: c.clut.clone(),
                trailing: Vec::new(),
            };
            let img = t.to_rgba(&tim::DecodeOptions::default())?;
            Ok(done_notes(tim::encode_png(&img)?, target, Vec::new()))
        })(),
        (Model::Tim(t), Format::Pxl | Format::Clt) => split(t, target, opts),
        _ => return None,
    })
}

fn pxl_to(p: &pxl::Pxl, target: Format, opts: &Options) -> Result<Conversion> {
    let allowed: &[O] = match target {
        Format::Png => &[O::Clt, O::Tim, O::Clut, O::SemiTransparent],
        _ => &[O::Clt, O::Tim],
    };
    opts.check(Format::Pxl, target, allowed)?;
    let clut = palette(opts);
    if opts.textures.clt.is_none() && !opts.textures.tims.is_empty() && clut.is_none() {
        return Err(option_error(
            O::Tim,
            "the TIM has no CLUT to give the PXL".into(),
        ));
    }
    let t = pxl::to_tim(p, clut);
    let mut notes = Vec::new();
    if target == Format::Tim {
        if clut.is_none() {
            notes.push(Note {
                code: "no-clut",
                message: "no palette given (--clt or --tim): the TIM has no CLUT block".into(),
            });
        }
        return Ok(done_notes(tim::write(&t)?, target, notes));
    }
    let Some(c) = clut else {
        return Err(Error::Parameter {
            what: "a PXL's pixels are CLUT indices: give its palette with --clt CLT or --tim TIM"
                .into(),
        });
    };
    let rows = c.data.len().div_ceil(usize::from(c.width).max(1));
    let clut_row = opts.textures.clut.unwrap_or(0);
    if clut_row >= rows.max(1) {
        return Err(option_error(
            O::Clut,
            format!("{clut_row}: the palette has {rows} CLUT row(s)"),
        ));
    }
    let d = tim::DecodeOptions {
        clut_row,
        stp: if opts.textures.semi_transparent {
            tim::Stp::SemiTransparent
        } else {
            tim::Stp::Opaque
        },
    };
    Ok(done_notes(tim::encode_png(&t.to_rgba(&d)?)?, target, notes))
}

fn split(t: &tim::Tim, target: Format, opts: &Options) -> Result<Conversion> {
    opts.check(Format::Tim, target, &[])?;
    // A TIM that cannot be written cannot be split either: the same error `validate` reports.
    tim::write(t)?;
    let (p, c) = pxl::split_tim(t)?;
    let pxl_bytes = pxl::write(&p)?;
    let clt_bytes = c.as_ref().map(clt::write).transpose()?;
    let mut notes = Vec::new();
    if !t.trailing.is_empty() {
        notes.push(Note {
            code: "trailing-bytes",
            message: format!("{} bytes after the TIM left out", t.trailing.len()),
        });
    }
    let mut out = match (target, clt_bytes) {
        (Format::Pxl, clt_bytes) => {
            let mut out = done_notes(pxl_bytes, target, notes);
            match clt_bytes {
                Some(b) => out.extra.push(Extra {
                    suffix: ".clt".into(),
                    format: Format::Clt,
                    bytes: b,
                }),
                None => out.notes.push(Note {
                    code: "no-clut",
                    message: "the TIM has no CLUT: no CLT is written beside the PXL".into(),
                }),
            }
            out
        }
        (_, Some(b)) => done_notes(b, target, notes),
        (_, None) => return Err(no_such_clut()),
    };
    if target == Format::Clt {
        out.extra.push(Extra {
            suffix: ".pxl".into(),
            format: Format::Pxl,
            bytes: pxl::write(&p)?,
        });
    }
    Ok(out)
}

fn no_such_clut() -> Error {
    Error::Parameter {
        what: "the TIM has no CLUT block to write as a CLT".into(),
    }
}
