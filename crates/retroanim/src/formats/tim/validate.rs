//! TIM validation: every finding with its severity and byte offset.

use crate::report::Issue;

use super::types::*;

/// Checks a TIM model and returns every finding.
pub fn validate(tim: &Tim) -> Vec<Issue> {
    let mut out = Vec::new();
    if tim.version != 0 || tim.id_reserved != 0 {
        out.push(Issue::warning(
            1,
            "version",
            "version or reserved ID bits are not 0",
        ));
    }
    if tim.flags_reserved != 0 {
        out.push(Issue::warning(
            4,
            "reserved-value",
            "FLAGS sets reserved bits 4..31",
        ));
    }
    match tim.depth() {
        None => out.push(Issue::error(
            4,
            "pmode",
            format!("PMODE {} is undefined", tim.pmode),
        )),
        Some(Depth::Mixed) => out.push(Issue::info(4, "pmode", "mixed-mode (PMODE 4) image")),
        Some(d @ (Depth::Clut4 | Depth::Clut8)) => match &tim.clut {
            None => out.push(Issue::error(
                4,
                "missing-clut",
                "a CLUT image without a CLUT block (CF clear): colours come from elsewhere in VRAM",
            )),
            Some(c) => {
                let need = if d == Depth::Clut4 { 16 } else { 256 };
                if (c.width as usize) < need {
                    out.push(Issue::warning(
                        8,
                        "clut-width",
                        format!("CLUT is {} entries wide; {need} are addressable", c.width),
                    ));
                }
            }
        },
        Some(Depth::Direct24) if tim.image.width % 3 != 0 => out.push(Issue::info(
            8,
            "stride",
            format!(
                "24-bit image: W = {} halfwords is not a multiple of 3; rows carry padding",
                tim.image.width
            ),
        )),
        Some(_) => {}
    }
    let image_at = 8 + tim.clut.as_ref().map_or(0, |c| c.bnum());
    for (b, at, what) in [
        (tim.clut.as_ref(), 8u64, "CLUT"),
        (Some(&tim.image), image_at, "pixel"),
    ] {
        if let Some(b) = b {
            let need = b.width as usize * b.height as usize;
            if b.data.len() != need {
                // Only a model edited as JSON can disagree: a read file holds W×H halfwords.
                out.push(Issue::error(
                    at + 12,
                    "count-mismatch",
                    format!(
                        "the {what} block holds {} halfwords, but W×H = {}×{} needs {need}",
                        b.data.len(),
                        b.width,
                        b.height
                    ),
                ));
            }
            if what == "pixel" && need == 0 {
                out.push(Issue::warning(
                    at + 8,
                    "no-image",
                    format!(
                        "the pixel block is {}×{}: there is no image (a palette-only TIM)",
                        b.width, b.height
                    ),
                ));
            }
            if !b.extra.is_empty() {
                out.push(Issue::warning(
                    at,
                    "block-size",
                    format!(
                        "{what} block: bnum covers {} bytes after the data",
                        b.extra.len()
                    ),
                ));
            }
        }
    }
    if !tim.trailing.is_empty() {
        out.push(Issue::warning(
            image_at + tim.image.bnum(),
            "trailing-bytes",
            format!("{} bytes after the pixel block", tim.trailing.len()),
        ));
    }
    out
}
