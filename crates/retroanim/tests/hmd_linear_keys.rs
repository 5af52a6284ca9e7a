//! Linear interpolation exported as glTF LINEAR keys: for the samples that interpolate
//! linearly, the keys at the console's key frames equal the player's values exactly, and the
//! MIMe weight tracks (morph-target weights) equal the MIMEPR weights / 4096 at every frame.

mod common;

use retroanim::formats::hmd::{self, *};
use retroanim::scene::{Interpolation, Track};

#[test]
fn linear_samples_give_linear_keys_equal_to_the_player_at_key_frames() {
    // Every animated sample: INTERP's linear coordinate, ROTS, the WALKRUN motions, ...
    let mut checked = 0;
    for (suffix, path) in common::corpus_files("HMD") {
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        if m.animations().is_empty() {
            continue;
        }
        let options = SceneOptions {
            max_frames: 300,
            ..SceneOptions::default()
        };
        let scene = m.to_scene(&options).unwrap();
        let Some(anim) = scene.animations.first() else {
            continue;
        };
        let mut p = Player::new(
            &m,
            &PlayOptions {
                sequence: Some(0),
                ..PlayOptions::default()
            },
        );
        let frames: Vec<Frame> = (0..anim.extras["frames"].as_u64().unwrap())
            .map(|_| {
                p.step().unwrap();
                p.frame()
            })
            .collect();
        // Key frames: the frames where a sequence pointer starts a new interval.
        let keys: Vec<usize> = (0..frames.len())
            .filter(|&f| {
                f == 0
                    || frames[f]
                        .sequences
                        .iter()
                        .zip(&frames[f - 1].sequences)
                        .any(|(a, b)| a.ctr_idx != b.ctr_idx)
            })
            .collect();
        if keys.len() < 2 {
            continue;
        }
        for ch in &anim.channels {
            let Track::Translation(v) = &ch.track else {
                continue;
            };
            assert_eq!(ch.interpolation, Interpolation::Linear);
            for &f in &keys {
                let t = frames[f].coordinates[ch.node].local.t;
                let want = [t[0] as f32, -t[1] as f32, -t[2] as f32].map(|x| x / 4096.0);
                // The export is world-exact (README "Export conventions"): a local is derived
                // from the console's world matrices, so it equals the console's local up to
                // the rounding `CompMatrix` did when it built the world matrix (a unit or two
                // under a rotated parent), exactly for a root.
                for i in 0..3 {
                    let d = (v[f][i] - want[i]).abs() * 4096.0;
                    assert!(
                        d <= 2.0,
                        "{suffix}: node {} frame {f}: {:?} vs {want:?}",
                        ch.node,
                        v[f]
                    );
                }
                // Key times never come after the frame (a client at exactly f/60 sees f).
                assert_eq!(ch.times[f], retroanim::scene::key_time(f as u64, 60.0));
                assert!(ch.times[f] as f64 * 60.0 <= f as f64);
            }
            checked += 1;
        }
    }
    if !common::corpus_files("HMD").is_empty() {
        assert!(checked > 10, "{checked} channels");
    }
}

#[test]
fn mime_weight_tracks_are_the_players_weights() {
    let Some(m) = common::corpus_hmd("COMB/AMMONITE/AMMONITE.HMD") else {
        eprintln!("corpus missing: skipped");
        return;
    };
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    let anim = &scene.animations[0];
    let ch = anim
        .channels
        .iter()
        .find(|c| matches!(c.track, Track::Weights(_)))
        .expect("AMMONITE's animation drives its MIMe weights");
    let Track::Weights(w) = &ch.track else {
        unreachable!()
    };
    let node = &scene.nodes[ch.node];
    let mesh = &scene.meshes[node.mesh.unwrap()];
    assert_eq!(mesh.primitives[0].targets.len(), w[0].len());
    let mut p = Player::new(&m, &PlayOptions::default());
    let mut distinct = std::collections::BTreeSet::new();
    for (f, key) in w.iter().enumerate() {
        p.step().unwrap();
        let want: Vec<f32> = p.frame().mime[0]
            .weights
            .iter()
            .map(|&x| x as f32 / 4096.0)
            .collect();
        assert_eq!(*key, want, "frame {f}");
        distinct.insert(format!("{key:?}"));
    }
    assert!(distinct.len() > 1, "weights never change");
}
