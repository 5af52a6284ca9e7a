//! glTF → TOD writes differential coordinate packets where they are smaller: on an animation
//! of small steps (a scaled object turning, a child growing) they are used and the file is
//! smaller, and the TOD player gives bit-for-bit the same world matrices as with absolute
//! packets only; the same holds for every corpus TOD brought back from glTF.

mod common;

use retroanim::convert::{self, Options};
use retroanim::formats::tod::author::{author, TodAuthorOptions};
use retroanim::formats::{tmd, tod};
use retroanim::import::gltf;
use retroanim::scene::{Animation, Channel, Interpolation, Node, Scene, Track, Transform};
use retroanim::{Format, Limits, Model};

/// A TOD's differential and absolute coordinate packets.
fn coordinate_packets(t: &tod::Tod) -> (usize, usize) {
    let mut n = (0, 0);
    for p in t.frames.iter().flat_map(|f| &f.packets) {
        if let tod::PacketData::Coordinate(c) = &p.data {
            if c.differential {
                n.0 += 1;
            } else {
                n.1 += 1;
            }
        }
    }
    n
}

/// Every pose's object world matrices and coordinates.
/// One object at one tick: ID, world matrix and coordinate, flattened.
type Placed = (u16, [i32; 12], [i32; 12]);

fn poses(t: &tod::Tod, model: Option<&tmd::Tmd>) -> Vec<Vec<Placed>> {
    let flat = |m: &retroanim::formats::gte::Mat| -> [i32; 12] {
        let mut out = [0; 12];
        for i in 0..3 {
            for j in 0..3 {
                out[3 * i + j] = m.m[i][j] as i32;
            }
            out[9 + i] = m.t[i];
        }
        out
    };
    tod::Player::new(t, model)
        .map(|p| {
            p.objects
                .iter()
                .map(|o| (o.id, flat(&o.world), flat(&o.local)))
                .collect()
        })
        .collect()
}

/// Authors `scene` with and without differential packets; both must play the same.
fn both(scene: &Scene, tmd_ids: &[Option<u32>], model: Option<&tmd::Tmd>) -> (tod::Tod, tod::Tod) {
    let on = author(scene, tmd_ids, &TodAuthorOptions::default()).unwrap();
    let off = author(
        scene,
        tmd_ids,
        &TodAuthorOptions {
            differential: false,
            ..TodAuthorOptions::default()
        },
    )
    .unwrap();
    assert_eq!(on.notes, off.notes);
    assert!(
        tod::validate(&on.tod).is_empty(),
        "{:?}",
        tod::validate(&on.tod)
    );
    assert_eq!(
        poses(&on.tod, model),
        poses(&off.tod, model),
        "differential packets changed a pose"
    );
    (on.tod, off.tod)
}

/// A node at scale 1.5 turning a quarter turn about Y in 2 s while it drifts, with a child
/// growing from 1.0 to 1.25 and a third node turning at scale 1.0.
fn small_steps() -> Scene {
    let times = vec![0.0, 2.0];
    let chan = |node, track| Channel {
        node,
        interpolation: Interpolation::Linear,
        times: times.clone(),
        track,
    };
    let h = std::f32::consts::FRAC_1_SQRT_2;
    Scene {
        nodes: vec![
            Node {
                transform: Transform::Trs {
                    translation: [0.0; 3],
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    scale: [1.5; 3],
                },
                ..Node::new("turner")
            },
            Node {
                parent: Some(0),
                transform: Transform::translation([0.25, 0.0, 0.0]),
                ..Node::new("grower")
            },
            Node::new("plain"),
        ],
        animations: vec![Animation {
            name: "steps".into(),
            channels: vec![
                chan(
                    0,
                    Track::Rotation(vec![[0.0, 0.0, 0.0, 1.0], [0.0, h, 0.0, h]]),
                ),
                chan(0, Track::Translation(vec![[0.0; 3], [0.1, 0.0, 0.05]])),
                chan(1, Track::Scale(vec![[1.0; 3], [1.25; 3]])),
                chan(
                    2,
                    Track::Rotation(vec![[0.0, 0.0, 0.0, 1.0], [h, 0.0, 0.0, h]]),
                ),
            ],
            ..Animation::default()
        }],
        ..Scene::default()
    }
}

#[test]
fn small_steps_use_differential_packets_and_a_smaller_file() {
    let (on, off) = both(&small_steps(), &[], None);
    let (diff_on, abs_on) = coordinate_packets(&on);
    let (diff_off, abs_off) = coordinate_packets(&off);
    assert_eq!(diff_off, 0);
    // 120 frames: the turning scaled object and the growing child go differential after
    // their first absolute packet; the unit-scale turner stays absolute (nothing to save).
    assert!(diff_on >= 200, "{diff_on} differential packets");
    assert!(abs_on < abs_off, "{abs_on} vs {abs_off} absolute packets");
    let (a, b) = (
        tod::write(&on).unwrap().len(),
        tod::write(&off).unwrap().len(),
    );
    eprintln!(
        "small steps: {a} bytes with {diff_on} differential packets, {b} bytes absolute only ({:.0} %)",
        100.0 * a as f64 / b as f64
    );
    assert!(a < b * 9 / 10, "{a} bytes vs {b}");
    // The file written reads back as written.
    assert_eq!(tod::read(&tod::write(&on).unwrap()).unwrap(), on);
}

#[test]
fn corpus_tods_from_glb_play_the_same_with_differential_packets() {
    // The smallest corpus TODs that scale an object (where differential packets can save
    // words), each standing alone (its own objects created).
    let scales = |t: &tod::Tod| {
        t.frames.iter().flat_map(|f| &f.packets).any(|p| {
            matches!(&p.data, tod::PacketData::Coordinate(c)
                if c.scale.is_some_and(|s| (s.x, s.y, s.z) != (4096, 4096, 4096)))
        })
    };
    let mut picked: Vec<(String, usize, tod::Tod)> = common::unique_files("TOD")
        .into_iter()
        .map(|(n, b)| (n, b.len(), tod::read(&b).unwrap()))
        .filter(|(_, _, t)| scales(t))
        .collect();
    picked.sort_by_key(|(_, len, _)| *len);
    let (mut files, mut with, mut used, mut bytes_on, mut bytes_off) = (0, 0, 0, 0, 0);
    for (name, _, anim) in picked.into_iter().take(8) {
        // Without the model: the coordinates are what is compared.
        let glb = convert::convert(&Model::Tod(anim), Format::Glb, &Options::default()).unwrap();
        let scene = gltf::read(&glb.bytes, &Limits::default()).unwrap().scene;
        let (on, off) = both(&scene, &[], None);
        let (a, b) = (
            tod::write(&on).unwrap().len(),
            tod::write(&off).unwrap().len(),
        );
        assert!(a <= b, "{name}: {a} vs {b} bytes");
        let n = coordinate_packets(&on).0;
        used += n;
        with += usize::from(n > 0);
        bytes_on += a;
        bytes_off += b;
        files += 1;
    }
    eprintln!(
        "{files} corpus TODs from GLB: {with} use {used} differential packets; {bytes_on} bytes vs {bytes_off} absolute only"
    );
    if files > 0 {
        // The game TODs that scale turning objects use them.
        assert!(
            with >= 4,
            "{with} of {files} files use differential packets"
        );
        assert!(bytes_on < bytes_off);
    }
}
