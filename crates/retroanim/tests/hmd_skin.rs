//! Shared polygons (category 1) → glTF skinning: every corpus HMD with shared vertices exports
//! a skinned mesh the Khronos validator accepts, and the skinned positions computed from the
//! exported file alone (node world matrices at an animation key × inverse bind matrices ×
//! positions) are the shared vertices the player computes, at rest and at sampled frames.

mod common;

use common::gltf_read::Gltf;
use retroanim::formats::hmd::{self, *};

/// The tolerance in console units: the console composes each parent level in 4.12 fixed point,
/// truncating, and glTF in floating point, so the two drift apart by up to about a unit per
/// level of the coordinate chain (SNAKE's 25-deep chain: up to 19 units, 5 mm).
fn tolerance(m: &Hmd) -> f64 {
    let p = Player::new(m, &PlayOptions::default());
    let coords = p.frame().coordinates;
    let depth = (0..coords.len())
        .map(|mut i| {
            let mut d = 0;
            while let Some(q) = coords[i].parent.filter(|_| d <= coords.len()) {
                i = q;
                d += 1;
            }
            d
        })
        .max()
        .unwrap_or(0);
    2.0 + depth as f64
}

/// The player's calculated vertices, in glTF axes and metres.
fn expected(m: &Hmd, p: &Player<'_>) -> Vec<[f64; 3]> {
    calculated_vectors(m, p, &p.frame())
        .into_iter()
        .filter(|c| c.kind == "vertices")
        .flat_map(|c| c.vectors)
        .flatten()
        .map(|v| [v[0] as f64, -v[1] as f64, -v[2] as f64].map(|x| x / 4096.0))
        .collect()
}

/// Every skinned vertex lies on a calculated vertex and every calculated vertex the mesh uses
/// has a skinned vertex on it; returns the largest distance seen.
fn assert_same_points(name: &str, got: &[[f64; 3]], want: &[[f64; 3]], units: f64) -> f64 {
    let d = |a: &[f64; 3], b: &[f64; 3]| (0..3).map(|i| (a[i] - b[i]).abs()).fold(0.0, f64::max);
    let tol = units / 4096.0;
    let mut worst: f64 = 0.0;
    for g in got {
        let best = want.iter().map(|w| d(g, w)).fold(f64::INFINITY, f64::min);
        assert!(
            best <= tol,
            "{name}: skinned vertex {g:?} is {best} m from every shared vertex"
        );
        worst = worst.max(best);
    }
    let used = want
        .iter()
        .filter(|w| got.iter().any(|g| d(g, w) <= tol))
        .count();
    assert!(used > 0, "{name}: no shared vertex drawn");
    worst
}

#[test]
fn shared_vertices_skin_as_the_console_computes_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (name, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        if shared_bindings(&m).is_empty() {
            continue;
        }
        let scene = m
            .to_scene(&SceneOptions {
                sequence: Some(0),
                max_frames: 400,
                ..SceneOptions::default()
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!scene.skins.is_empty(), "{name}: no skin");
        let text = retroanim::export::gltf::write_gltf(&scene).unwrap();
        let out = dir.path().join(format!("{checked}.gltf"));
        std::fs::write(&out, &text).unwrap();
        common::assert_khronos_clean(&out);
        let g = Gltf::parse(&text);
        // Rest pose.
        let tol = tolerance(&m);
        let rest = Player::new(&m, &PlayOptions::default());
        let mut worst = assert_same_points(
            &name,
            &g.skinned_positions(&g.world_matrices(None)),
            &expected(&m, &rest),
            tol,
        );
        // Sampled frames of sequence 0 (key k = frame k).
        if let Some(a) = scene.animations.first() {
            let frames = a.extras["frames"].as_u64().unwrap() as usize;
            let mut p = Player::new(
                &m,
                &PlayOptions {
                    sequence: Some(0),
                    ..PlayOptions::default()
                },
            );
            let samples = [0, 1, 7, 30, frames / 2, frames - 1];
            for f in 0..frames {
                p.step().unwrap();
                if samples.contains(&f) {
                    let got = g.skinned_positions(&g.world_matrices(Some((0, f))));
                    let w = assert_same_points(
                        &format!("{name} frame {f}"),
                        &got,
                        &expected(&m, &p),
                        tol,
                    );
                    worst = worst.max(w);
                }
            }
        }
        eprintln!(
            "{name}: farthest {:.2} units (tolerance {tol})",
            worst * 4096.0
        );
        checked += 1;
    }
    eprintln!("{checked} HMDs with shared vertices checked");
}
