//! Every corpus TMD drawn by the console renderer (with the TIMs of its folder placed in VRAM):
//! no error, and a picture that shows something (a silhouette of at least a few pixels that
//! differ from the background).

mod common;

use std::path::Path;

use retroanim::formats::{tim, tmd};
use retroanim::render::{self, View};
use retroanim::vram::Vram;

/// The TIMs in the same folder as `path`, in name order.
fn tims_beside(path: &Path) -> Vec<tim::Tim> {
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    names.sort();
    names
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("tim")))
        .filter_map(|p| tim::read(&std::fs::read(p).ok()?).ok())
        .collect()
}

#[test]
fn every_corpus_tmd_draws_a_silhouette() {
    let files = common::corpus_files("TMD");
    let out = std::env::var_os("RETROANIM_RENDER_OUT");
    let mut drawn = 0;
    for (name, path) in &files {
        let Ok(t) = tmd::read(&std::fs::read(path).unwrap()) else {
            continue; // files the reader rejects are covered by the TMD tests
        };
        if t.triangle_count() == 0 {
            continue;
        }
        let mut vram = Vram::new();
        for x in tims_beside(path) {
            vram.place_tim(&x);
        }
        let view = View {
            background: [0, 0, 0],
            ..View::default()
        };
        let (fb, notes) = render::render_tmd(&t, &vram, &view);
        let covered = fb.pixels.iter().filter(|&&p| p != 0).count();
        assert!(
            covered >= 16,
            "{name}: only {covered} pixels drawn; {notes:?}"
        );
        drawn += 1;
        if let Some(dir) = &out {
            let png = tim::encode_png(&tim::Rgba {
                width: fb.width,
                height: fb.height,
                pixels: fb.to_rgba(),
            })
            .unwrap();
            let file = name.replace('/', "_") + ".png";
            std::fs::write(Path::new(dir).join(file), png).unwrap();
        }
    }
    assert!(files.is_empty() || drawn > 0);
}
