//! World-exact export: every node's world transform, composed in f64 from the scene's local
//! TRS values (what the glTF file holds) and sampled at exactly `frame / fps` (HMD) or
//! `frame × resolution / 60` (TOD) as a client does, equals the console's world matrix from
//! the player within 0.5 units and 0.05°: hand-built 30-level chains and corpus files.

#![allow(clippy::needless_range_loop)] // matrices are indexed as the formulas write them

mod common;

use common::hmd_anim::*;
use retroanim::formats::gte::Mat;
use retroanim::formats::hmd::{self, *};
use retroanim::formats::tod::scene::{tod_scene, PsxOptions};
use retroanim::formats::tod::{self, Coordinate, IdValue, Packet, PacketData, Tod};
use retroanim::scene::{Interpolation, Scene, Track, Transform};

type Aff = ([[f64; 3]; 3], [f64; 3]);

fn mul(a: &Aff, b: &Aff) -> Aff {
    let mut m = [[0.0; 3]; 3];
    let mut t = a.1;
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = (0..3).map(|k| a.0[i][k] * b.0[k][j]).sum();
        }
        t[i] += (0..3).map(|k| a.0[i][k] * b.1[k]).sum::<f64>();
    }
    (m, t)
}

fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Aff {
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let [x, y, z, w] = q.map(|v| v / n);
    let r = retroanim::scene::sample::quat_matrix([x, y, z, w]);
    (
        r.map(|row| [row[0] * s[0], row[1] * s[1], row[2] * s[2]]),
        t,
    )
}

/// A channel's value at time `t` (seconds, f64) as a client samples it.
fn sample(times: &[f32], values: &[Vec<f64>], interp: Interpolation, t: f64) -> Vec<f64> {
    let i = times.iter().rposition(|&k| k as f64 <= t).unwrap_or(0);
    if interp == Interpolation::Step || i + 1 >= times.len() || (times[i] as f64) > t {
        return values[i].clone();
    }
    let (a, b) = (times[i] as f64, times[i + 1] as f64);
    let f = (t - a) / (b - a);
    values[i]
        .iter()
        .zip(&values[i + 1])
        .map(|(x, y)| x + (y - x) * f)
        .collect()
}

/// Every node's world transform in animation `anim` at time `t`, composed in f64.
fn worlds_at(scene: &Scene, anim: usize, t: f64) -> Vec<Aff> {
    let mut local: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = scene
        .nodes
        .iter()
        .map(|n| match n.transform {
            Transform::Trs {
                translation,
                rotation,
                scale,
            } => (
                translation.map(f64::from).to_vec(),
                rotation.map(f64::from).to_vec(),
                scale.map(f64::from).to_vec(),
            ),
            _ => panic!("{}: TRS expected", n.name),
        })
        .collect();
    for ch in &scene.animations[anim].channels {
        let (values, slot): (Vec<Vec<f64>>, usize) = match &ch.track {
            Track::Translation(v) => (v.iter().map(|x| x.map(f64::from).to_vec()).collect(), 0),
            Track::Rotation(v) => (v.iter().map(|x| x.map(f64::from).to_vec()).collect(), 1),
            Track::Scale(v) => (v.iter().map(|x| x.map(f64::from).to_vec()).collect(), 2),
            _ => continue,
        };
        let v = sample(&ch.times, &values, ch.interpolation, t);
        match slot {
            0 => local[ch.node].0 = v,
            1 => local[ch.node].1 = v,
            _ => local[ch.node].2 = v,
        }
    }
    let mut out: Vec<Option<Aff>> = vec![None; scene.nodes.len()];
    fn world(
        i: usize,
        scene: &Scene,
        local: &[(Vec<f64>, Vec<f64>, Vec<f64>)],
        out: &mut [Option<Aff>],
    ) -> Aff {
        if let Some(w) = out[i] {
            return w;
        }
        let (t, q, s) = &local[i];
        let l = trs(
            [t[0], t[1], t[2]],
            [q[0], q[1], q[2], q[3]],
            [s[0], s[1], s[2]],
        );
        let w = match scene.nodes[i].parent {
            Some(p) => mul(&world(p, scene, local, out), &l),
            None => l,
        };
        out[i] = Some(w);
        w
    }
    (0..scene.nodes.len())
        .map(|i| world(i, scene, &local, &mut out))
        .collect()
}

/// Console world matrix in the scene's default axes (x, −y, −z) and units (1/4096).
fn console(m: &Mat) -> Aff {
    let c = [1.0, -1.0, -1.0];
    let mut r = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = m.m[i][j] as f64 / 4096.0 * c[i] * c[j];
        }
    }
    (r, [0, 1, 2].map(|i| m.t[i] as f64 * c[i] / 4096.0))
}

/// The nearest rotation to `m` (polar decomposition by Newton iteration).
fn polar(m: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut r = m;
    for _ in 0..20 {
        let det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
            - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
            + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
        if det.abs() < 1e-12 {
            break;
        }
        // Inverse transpose = cofactor matrix / det.
        let c = |i: usize, j: usize| {
            let (a, b) = ((i + 1) % 3, (i + 2) % 3);
            let (x, y) = ((j + 1) % 3, (j + 2) % 3);
            (r[a][x] * r[b][y] - r[a][y] * r[b][x]) / det
        };
        let mut next = r;
        for i in 0..3 {
            for j in 0..3 {
                next[i][j] = 0.5 * (r[i][j] + c(i, j));
            }
        }
        r = next;
    }
    r
}

/// (translation error in console units, angle in degrees between the rotations nearest to
/// the client's and the console's matrices).
fn error(client: &Aff, want: &Aff) -> (f64, f64) {
    let dt = (0..3)
        .map(|i| (client.1[i] - want.1[i]).powi(2))
        .sum::<f64>()
        .sqrt()
        * 4096.0;
    let (a, b) = (polar(client.0), polar(want.0));
    // Angle of aᵀ·b: trace = 1 + 2 cos θ.
    let tr: f64 = (0..3)
        .map(|j| (0..3).map(|i| a[i][j] * b[i][j]).sum::<f64>())
        .sum();
    let ang = ((tr - 1.0) / 2.0).clamp(-1.0, 1.0).acos().to_degrees();
    (dt, ang)
}

/// Max errors of an HMD scene against the player, every sequence, every key.
fn hmd_max_error(m: &Hmd, what: &str) -> (f64, f64) {
    let scene = m.to_scene(&SceneOptions::default()).unwrap();
    let mut worst = (0.0f64, 0.0f64);
    for (a, anim) in scene.animations.iter().enumerate() {
        let k = anim.extras["sequence"].as_u64().unwrap() as usize;
        let frames = anim.extras["frames"].as_u64().unwrap();
        let mut p = Player::new(
            m,
            &PlayOptions {
                sequence: Some(k),
                ..PlayOptions::default()
            },
        );
        for f in 0..frames {
            p.step().unwrap();
            let worlds = worlds_at(&scene, a, f as f64 / 60.0);
            for c in p.frame().coordinates {
                let (dt, da) = error(&worlds[c.index], &console(&c.world));
                worst = (worst.0.max(dt), worst.1.max(da));
            }
        }
    }
    eprintln!(
        "{what}: max world error {:.4} units, {:.5}°",
        worst.0, worst.1
    );
    worst
}

fn assert_within(worst: (f64, f64), what: &str) {
    assert!(worst.0 <= 0.5, "{what}: {} units", worst.0);
    assert!(worst.1 <= 0.05, "{what}: {}°", worst.1);
}

/// A 30-coordinate chain (each coordinate the child of the one before), every coordinate
/// turning between two rotations whose fixed-point rounding is visible, 300 units apart.
#[test]
fn hmd_thirty_level_chain_is_world_exact() {
    let n = 30;
    let kf = |t: [i32; 3], r: [i16; 3]| -> Vec<u32> {
        let mut v: Vec<u32> = t.iter().map(|&x| x as u32).collect();
        v.push(r[0] as u16 as u32 | (r[1] as u16 as u32) << 16);
        v.push(r[2] as u16 as u32);
        v
    };
    let mut params = kf([300, 17, -40], [365, -3, -5]);
    params.extend(kf([290, -23, 31], [-211, 97, 143]));
    let ptrs: Vec<Ptr> = (0..n)
        .map(|k| ptr(0x0400_0000 | (1 + 20 * k as u32), 0))
        .collect();
    let mut m = read_built(&anim_file(
        n,
        &[0x0300_0011],
        &ptrs,
        &[key(0, 0, 0), key(0, 7, 5), key(0, 9, 0), jump(0, 0, 1)],
        &params,
    ));
    for r in &mut m.regions {
        let offset = r.offset;
        if let RegionBody::Coordinates(c) = &mut r.body {
            for (k, u) in c.iter_mut().enumerate().skip(1) {
                u.parent = offset + 1 + 20 * (k as u32 - 1);
            }
        }
    }
    let mut p = Player::new(&m, &PlayOptions::default());
    p.step().unwrap();
    assert_eq!(p.frame().coordinates[n - 1].parent, Some(n - 2), "a chain");
    let worst = hmd_max_error(&m, "HMD 30-level chain");
    assert_within(worst, "HMD 30-level chain");
}

#[test]
fn tod_thirty_level_chain_is_world_exact() {
    let n = 30u16;
    let mut first = Vec::new();
    for id in 1..=n {
        first.push(Packet::new(
            id,
            PacketData::ObjectControl(tod::ObjectControl::Create),
        ));
    }
    for id in 1..=n {
        first.push(Packet::new(
            id,
            PacketData::Coordinate(Coordinate {
                rotation: Some([365 * 90, -3 * 90, -5 * 90]),
                translation: Some([300, 17, -40]),
                ..Coordinate::default()
            }),
        ));
        if id > 1 {
            first.push(Packet::new(id, PacketData::Parent(IdValue::new(id - 1))));
        }
    }
    let mut frames = vec![tod::Frame {
        number: 0,
        packets: first,
        extra_words: vec![],
        size_override: None,
    }];
    for f in 1..6u32 {
        let packets = (1..=n)
            .map(|id| {
                Packet::new(
                    id,
                    PacketData::Coordinate(Coordinate {
                        rotation: Some([
                            (f as i32 * 1013 + id as i32 * 71) % 40000,
                            -(f as i32 * 577) % 30000,
                            (id as i32 * 331) % 20000,
                        ]),
                        translation: Some([290 + f as i32, -23, 31 * f as i32]),
                        ..Coordinate::default()
                    }),
                )
            })
            .collect();
        frames.push(tod::Frame {
            number: f,
            packets,
            extra_words: vec![],
            size_override: None,
        });
    }
    let anim = Tod {
        header: tod::Header {
            version: 0,
            resolution: 3,
        },
        frames,
        trailing: vec![],
    };
    let anim = tod::read(&tod::write(&anim).unwrap()).unwrap();
    let worst = tod_max_error(&anim, &[], "TOD 30-level chain");
    assert_within(worst, "TOD 30-level chain");
}

/// Max errors of a TOD scene (played after `prelude`) against the player's world matrices.
fn tod_max_error(anim: &Tod, prelude: &[&Tod], what: &str) -> (f64, f64) {
    let scene = retroanim::formats::tod::scene::tod_scene_after(
        prelude,
        anim,
        None,
        &PsxOptions::default(),
    )
    .unwrap();
    let mut before: Option<tod::Player> = None;
    for p in prelude {
        let mut pl = match before.take() {
            None => tod::Player::new(p, None),
            Some(pl) => pl.then(p),
        };
        while pl.advance() {}
        before = Some(pl);
    }
    let player = match before {
        None => tod::Player::new(anim, None),
        Some(pl) => pl.then(anim),
    };
    let poses: Vec<tod::Pose> = player.collect();
    let first = poses[0].frame as f64;
    let mut worst = (0.0f64, 0.0f64);
    for pose in &poses {
        let t = (pose.frame as f64 - first) * anim.ticks_per_frame() as f64 / 60.0;
        let worlds = worlds_at(&scene, 0, t);
        let mut seen = std::collections::BTreeSet::new();
        // The first slot with an ID is the object (as the player's search finds it).
        for o in pose.objects.iter().filter(|o| seen.insert(o.id)) {
            let Some(node) = scene.nodes.iter().position(|nd| {
                nd.extras["tod_object"] == o.id && nd.name == format!("object {}", o.id)
            }) else {
                continue;
            };
            let (dt, da) = error(&worlds[node], &console(&o.world));
            worst = (worst.0.max(dt), worst.1.max(da));
        }
    }
    eprintln!(
        "{what}: max world error {:.4} units, {:.5}°",
        worst.0, worst.1
    );
    worst
}

#[test]
fn snake_samples_are_world_exact() {
    for (name, path) in common::corpus_files("HMD") {
        if !name.contains("ANIM/SNAKE/") {
            continue;
        }
        let m = hmd::read(&std::fs::read(&path).unwrap()).unwrap();
        let worst = hmd_max_error(&m, &name);
        assert_within(worst, &name);
    }
}

#[test]
fn janken_tods_are_world_exact() {
    let tods = common::corpus_files("TOD");
    let janken: Vec<_> = tods
        .iter()
        .filter(|(n, _)| n.contains("JANKEN/TOD/"))
        .collect();
    for (name, path) in &janken {
        // Every animation but APPEAR plays after the APPEAR.TOD of its own folder.
        let appear_path = path.with_file_name("APPEAR.TOD");
        let appear = tod::read(&std::fs::read(&appear_path).unwrap()).unwrap();
        let anim = tod::read(&std::fs::read(path).unwrap()).unwrap();
        let prelude: Vec<&Tod> = if name.ends_with("APPEAR.TOD") {
            vec![]
        } else {
            vec![&appear]
        };
        let worst = tod_max_error(&anim, &prelude, name);
        assert_within(worst, name);
    }
}

#[test]
fn tod_scene_plain_entry_matches_after_with_no_prelude() {
    // tod_scene is tod_scene_after with no prelude: the same nodes.
    let anim = Tod {
        header: tod::Header {
            version: 0,
            resolution: 1,
        },
        frames: vec![tod::Frame {
            number: 0,
            packets: vec![Packet::new(
                1,
                PacketData::ObjectControl(tod::ObjectControl::Create),
            )],
            extra_words: vec![],
            size_override: None,
        }],
        trailing: vec![],
    };
    let a = tod_scene(&anim, None, &PsxOptions::default()).unwrap();
    assert_eq!(a.nodes.len(), 1);
}

/// TMD IDs the model lacks are not dropped silently: one note for the kind, with its count.
#[test]
fn tod_scene_notes_missing_tmd_ids_with_a_count() {
    let obj = retroanim::formats::tmd::Object {
        vert_top: 0,
        normal_top: 0,
        primitive_top: 0,
        scale: 0,
        vertices: vec![],
        normals: vec![],
        primitives: vec![],
    };
    let mut model = retroanim::formats::tmd::Tmd {
        flags: 0,
        address_base: 0,
        objects: vec![obj],
        gaps: vec![],
    };
    model.pack();
    let mut packets = Vec::new();
    for id in 1..=4u16 {
        packets.push(Packet::new(
            id,
            PacketData::ObjectControl(tod::ObjectControl::Create),
        ));
        packets.push(Packet::new(id, PacketData::TmdId(IdValue::new(id))));
    }
    let anim = Tod {
        header: tod::Header {
            version: 0,
            resolution: 1,
        },
        frames: vec![tod::Frame {
            number: 0,
            packets,
            extra_words: vec![],
            size_override: None,
        }],
        trailing: vec![],
    };
    let anim = tod::read(&tod::write(&anim).unwrap()).unwrap();
    let (_, notes) = retroanim::formats::tod::scene::tod_scene_noted(
        &[],
        &anim,
        Some(&model),
        &PsxOptions::default(),
    )
    .unwrap();
    // IDs 2, 3 and 4 are beyond the model's one object: one note, three times.
    let missing: Vec<&String> = notes
        .iter()
        .filter(|(code, _)| *code == "tmd-id-missing")
        .map(|(_, n)| n)
        .collect();
    assert_eq!(missing.len(), 1, "{notes:?}");
    assert!(missing[0].contains("TMD ID"), "{notes:?}");
    assert!(missing[0].contains("(3 times in all)"), "{notes:?}");
}
