//! P3D: corpus round trips, LOD frames, robustness, hand-built features and properties.

mod common;

use proptest::prelude::*;
use retroanim::formats::p3d::{
    self, frames::NewFrame, scene, Bytes, Face, Lod, Mlod, P3d, Point, Signature, SlotBytes, Tagg,
    TaggData, Text, VertexRef,
};
use retroanim::{Error, Limits, Severity};

fn corpus(kind: &str) -> Vec<(String, Vec<u8>)> {
    common::corpus_files(kind)
        .into_iter()
        .map(|(name, path)| {
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, data)
        })
        .collect()
}

fn find(kind: &str, suffix: &str) -> Option<Vec<u8>> {
    Some(std::fs::read(common::corpus_file(kind, suffix)?).unwrap())
}

#[test]
fn every_well_formed_mlod_reads_validates_and_round_trips() {
    let mut read = 0;
    let mut failed = Vec::new();
    for (name, data) in corpus("p3d-mlod") {
        match p3d::read(&data) {
            Ok(model) => {
                read += 1;
                let errors: Vec<_> = p3d::validate(&model)
                    .into_iter()
                    .filter(|i| i.severity == Severity::Error)
                    .collect();
                assert!(errors.is_empty(), "{name}: {errors:?}");
                let written = p3d::write(&model).unwrap();
                assert!(written == data, "{name}: written bytes differ");
            }
            Err(e) => {
                let offset = e
                    .offset()
                    .unwrap_or_else(|| panic!("{name}: {e} has no offset"));
                assert!(offset < data.len() as u64, "{name}: {e}");
                failed.push((name, data.len()));
            }
        }
    }
    if read + failed.len() > 0 {
        // The corpus has exactly three truncated fuzz inputs (24-26 bytes); everything else reads.
        assert_eq!(failed.len(), 3, "{failed:?}");
        assert!(failed.iter().all(|(_, len)| *len < 32), "{failed:?}");
    }
}

#[test]
fn truncated_cwr_fuzz_files_fail_at_the_version_field() {
    let files = corpus("p3d-mlod");
    let fuzz: Vec<_> = files.iter().filter(|(n, _)| n.contains("/fuzz_")).collect();
    if files.is_empty() {
        return;
    }
    assert_eq!(fuzz.len(), 3);
    for (name, data) in fuzz {
        let e = p3d::read_with(data, &Limits::default()).unwrap_err();
        assert!(
            matches!(e, Error::Unsupported { offset: 4, .. }),
            "{name}: {e}"
        );
        assert!(e.to_string().contains("MLOD version"), "{name}: {e}");
        // With the version fixed, the LOD count is the next thing wrong: it asks for gigabytes.
        let mut fixed = data.clone();
        fixed[4..8].copy_from_slice(&0x101u32.to_le_bytes());
        let e = p3d::read(&fixed).unwrap_err();
        assert!(
            matches!(e, Error::Malformed { offset: 8, .. }),
            "{name}: {e}"
        );
    }
}

#[test]
fn every_corpus_odol_reads_validates_and_round_trips() {
    let files = corpus("p3d-odol");
    for (name, data) in &files {
        let model = p3d::read(data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let version = u32::from_le_bytes([data[4], data[5], data[6], data[7]]);
        assert!(
            matches!(&model, P3d::Odol(o) if o.version == version),
            "{name}"
        );
        assert!([7, 50, 73].contains(&version), "{name}: version {version}");
        assert_eq!(p3d::write(&model).unwrap(), *data, "{name}");
        assert!(p3d::validate(&model)
            .iter()
            .all(|i| i.severity != Severity::Error));
    }
}

#[test]
fn cwr_odol_v7_has_three_frames() {
    let Some(data) = find("p3d-odol", "animated_morph_odol.p3d") else {
        return;
    };
    let model = p3d::read(&data).unwrap();
    assert_eq!(model.lod_count(), 1);
    let frames = model.frames(0);
    assert_eq!(
        frames.iter().map(|f| f.time).collect::<Vec<_>>(),
        [0.0, 0.5, 1.0]
    );
    assert!(frames.iter().all(|f| f.positions.len() == 4));
    let s = model.summary();
    assert_eq!(
        (s.lods[0].points, s.lods[0].faces, s.lods[0].frames),
        (4, 1, 3)
    );
}

#[test]
fn agm_fastroping_has_three_frames_starting_at_the_base_pose() {
    let Some(data) = find("p3d-mlod", "agm_fastroping.p3d") else {
        return;
    };
    let model = p3d::read(&data).unwrap();
    let frames = model.frames(0);
    assert_eq!(
        frames.iter().map(|f| f.time).collect::<Vec<_>>(),
        [0.0, 0.5, 1.0]
    );
    let P3d::Mlod(m) = &model else { panic!() };
    assert_eq!(m.lods[0].points.len(), 594);
    let base: Vec<[f32; 3]> = m.lods[0].points.iter().map(|p| p.pos).collect();
    assert_eq!(frames[0].positions, &base[..]);
    assert_ne!(frames[2].positions, &base[..]);
}

#[test]
fn agm_track_has_seven_lods_with_one_frame_each() {
    let Some(data) = find("p3d-mlod", "agm_track.p3d") else {
        return;
    };
    let model = p3d::read(&data).unwrap();
    assert_eq!(model.lod_count(), 7);
    for lod in 0..7 {
        let f = model.frames(lod);
        assert_eq!(f.len(), 1, "LOD {lod}");
        assert_eq!(f[0].time, 0.0);
        assert_eq!(Some(f[0].positions.len()), model.frame_width(lod));
    }
}

#[test]
fn golden_summaries() {
    let mut out = String::new();
    for kind in ["p3d-mlod", "p3d-odol"] {
        for (name, data) in corpus(kind) {
            let line = match p3d::read(&data) {
                Ok(m) => serde_json::to_string(&m.summary()).unwrap(),
                Err(e) => format!("error: {e}"),
            };
            out.push_str(&format!("{name}\t{line}\n"));
        }
    }
    if !out.is_empty() {
        common::check_golden("p3d_summaries.tsv", &out);
    }
}

#[test]
fn point_cache_round_trip_restores_the_original_bytes() {
    for (name, data) in corpus("p3d-mlod").into_iter().chain(corpus("p3d-odol")) {
        let Ok(model) = p3d::read(&data) else {
            continue;
        };
        for lod in 0..model.lod_count() {
            if model.frames(lod).is_empty() {
                continue;
            }
            let cache =
                scene::to_point_cache(&model, lod, scene::CacheAxes::ObjectBuilder, 1.0).unwrap();
            let mut back = model.clone();
            // Scramble the frames first, so the test sees them restored.
            let zeros = model
                .frames(lod)
                .iter()
                .map(|f| NewFrame {
                    time: 9.0,
                    positions: vec![[0.0; 3]; f.positions.len()],
                })
                .collect();
            back.set_frames(lod, zeros).unwrap();
            assert!(p3d::write(&back).unwrap() != data);
            scene::apply_point_cache(&mut back, lod, &cache, scene::CacheAxes::ObjectBuilder, 1.0)
                .unwrap();
            assert!(p3d::write(&back).unwrap() == data, "{name} LOD {lod}");
        }
    }
}

#[test]
fn point_count_mismatch_names_both_counts_and_changes_nothing() {
    let mut model = P3d::Mlod(tiny_mlod(Signature::P3dm));
    let before = model.clone();
    let cache = retroanim::scene::PointCache {
        points: 5,
        frames: vec![retroanim::scene::PointFrame {
            time: 0.0,
            positions: vec![[0.0; 3]; 5],
        }],
        ..Default::default()
    };
    let e = scene::apply_point_cache(&mut model, 0, &cache, scene::CacheAxes::Raw, 1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("5 points") && e.contains("has 3"), "{e}");
    assert_eq!(model, before);
}

#[test]
fn lod_scene_passes_the_scene_checks() {
    let Some(data) = find("p3d-mlod", "agm_fastroping.p3d") else {
        return;
    };
    let model = p3d::read(&data).unwrap();
    let s = scene::to_scene(&model, 0, scene::SceneAxes::Gltf, 1.0).unwrap();
    assert!(s.check().is_empty(), "{:?}", s.check());
    assert_eq!(s.meshes[0].target_names.len(), 3);
    assert_eq!(s.animations[0].channels[0].times, [0.0, 0.5, 1.0]);
}

#[test]
fn json_dump_round_trips() {
    for (name, data) in corpus("p3d-mlod").into_iter().chain(corpus("p3d-odol")) {
        if data.len() > 400_000 {
            continue;
        }
        let Ok(model) = retroanim::read_any(&data) else {
            continue;
        };
        let json = model.to_json().unwrap();
        let back = retroanim::Model::from_json(json.as_bytes()).unwrap();
        assert!(back.write().unwrap() == data, "{name}");
    }
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let mut files: Vec<(String, Vec<u8>)> = corpus("p3d-mlod")
        .into_iter()
        .filter(|(_, d)| d.len() < 20_000)
        .collect();
    files.extend(
        corpus("p3d-odol")
            .into_iter()
            .filter(|(_, d)| d.len() < 20_000),
    );
    for (name, data) in files {
        let step = (data.len() / 97).max(1);
        for cut in (0..data.len()).step_by(step) {
            let e = p3d::read(&data[..cut]);
            if let Err(e) = e {
                if let Some(o) = e.offset() {
                    assert!(o <= cut as u64, "{name} cut at {cut}: {e}");
                }
            }
        }
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut d = data.clone();
            let bit = (rng % (d.len() as u64 * 8)) as usize;
            d[bit / 8] ^= 1 << (bit % 8);
            if let Ok(m) = p3d::read(&d) {
                let _ = p3d::validate(&m);
                let _ = m.summary();
            }
        }
    }
}

/// A one-LOD MLOD with a triangle whose unused slot holds leftover bytes.
fn tiny_mlod(signature: Signature) -> Mlod {
    let sp3x = signature == Signature::Sp3x;
    let points = vec![
        Point {
            pos: [0.0, 0.0, 0.0],
            flags: 0,
        },
        Point {
            pos: [1.0, 0.0, 0.0],
            flags: 0x0100_0000,
        },
        Point {
            pos: [0.0, 1.0, 0.0],
            flags: 0x20,
        },
    ];
    let v = |p: u32| VertexRef {
        point: p,
        normal: 0,
        uv: [p as f32 * 0.5, 1.0],
    };
    let face = Face {
        n: 3,
        vertices: [v(0), v(1), v(2)].into_iter().collect(),
        unused_slots: SlotBytes::new(&(0..16).collect::<Vec<u8>>()),
        flags: 0,
        texture: Text::from("data\\tex_co.paa"),
        texture_padding: if sp3x {
            Bytes(vec![0, 0, 7])
        } else {
            Bytes::default()
        },
        material: if sp3x {
            None
        } else {
            Some(Text::from("data\\m.rvmat"))
        },
    };
    let tagg = |name: &str, data: TaggData| Tagg {
        active: if sp3x { None } else { Some(1) },
        name: Text::from(name),
        name_padding: Bytes::default(),
        data,
    };
    let anim = |t: f32| TaggData::Animation {
        time: t,
        positions: vec![[t, 0.0, 0.0], [1.0, t, 0.0], [0.0, 1.0, t]],
    };
    Mlod {
        version: 0x101,
        lods: vec![Lod {
            signature,
            header_size: 28,
            version: if sp3x { 0x99 } else { 0x100 },
            flags: 0,
            header_extra: Bytes::default(),
            points,
            normals: vec![[0.0, 0.0, -1.0]],
            faces: vec![face],
            taggs: vec![
                tagg("#Animation#", anim(0.0)),
                tagg(
                    "#SharpEdges#",
                    TaggData::SharpEdges {
                        edges: vec![[0, 1]],
                    },
                ),
                tagg("#Animation#", anim(1.0)),
                tagg(
                    "proxy:\\a\\b.001",
                    TaggData::Selection {
                        points: Bytes(vec![1, 1, 1]),
                        faces: Bytes(vec![0]),
                    },
                ),
                tagg(
                    "#Mass#",
                    TaggData::Mass {
                        masses: vec![1.0, 2.0, 3.0],
                    },
                ),
                tagg(
                    "#Property#",
                    TaggData::Property {
                        name: Text::from("class"),
                        name_padding: Bytes::default(),
                        value: Text::from("house"),
                        value_padding: Bytes::default(),
                    },
                ),
                tagg(
                    "#UVSet#",
                    TaggData::UvSet {
                        set: 1,
                        uvs: vec![[0.0, 0.0]; 3],
                    },
                ),
                tagg(
                    "#Lock#",
                    TaggData::Raw {
                        data: Bytes(vec![9]),
                    },
                ),
                tagg("#EndOfFile#", TaggData::EndOfFile),
            ],
            resolution: 1e13,
        }],
        trailing: Bytes::default(),
    }
}

#[test]
fn hand_built_p3dm_and_sp3x_round_trip_with_every_tagg_kind() {
    for sig in [Signature::P3dm, Signature::Sp3x] {
        let m = P3d::Mlod(tiny_mlod(sig));
        let bytes = p3d::write(&m).unwrap();
        let back = p3d::read(&bytes).unwrap();
        assert_eq!(back, m, "{sig:?}");
        assert_eq!(
            back.frames(0).len(),
            2,
            "non-contiguous frames are both found"
        );
        assert!(
            p3d::validate(&back).iter().any(|i| i.code == "tagg-size"),
            "#Lock# of 1 byte"
        );
        let P3d::Mlod(mm) = &back else { panic!() };
        assert_eq!(
            mm.lods[0].taggs[3].proxy(),
            Some(("\\a\\b".into(), Some(1)))
        );
    }
}

#[test]
fn replacing_frames_changes_only_the_frame_bytes() {
    let m = P3d::Mlod(tiny_mlod(Signature::P3dm));
    let before = p3d::write(&m).unwrap();
    let mut changed = m.clone();
    let frames: Vec<NewFrame> = changed
        .frames(0)
        .iter()
        .map(|f| NewFrame {
            time: f.time,
            positions: f
                .positions
                .iter()
                .map(|p| [p[0] + 1.0, p[1], p[2]])
                .collect(),
        })
        .collect();
    changed.set_frames(0, frames).unwrap();
    let after = p3d::write(&changed).unwrap();
    assert_eq!(before.len(), after.len());
    let differing: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    assert!(!differing.is_empty());
    // Every differing byte lies inside an x coordinate of a frame position.
    let P3d::Mlod(mm) = &m else { panic!() };
    let np = mm.lods[0].points.len();
    let anim_at: Vec<usize> = before
        .windows(12)
        .enumerate()
        .filter(|(_, w)| w == b"#Animation#\0")
        .map(|(i, _)| i + 12 + 4 + 4)
        .collect();
    assert_eq!(anim_at.len(), 2);
    for i in differing {
        assert!(
            anim_at
                .iter()
                .any(|&a| i >= a && i < a + 12 * np && (i - a) % 12 < 4),
            "byte {i} changed"
        );
    }
    // Adding a third frame puts it after the last existing one.
    let mut more = m.clone();
    let mut frames: Vec<NewFrame> = more
        .frames(0)
        .iter()
        .map(|f| NewFrame {
            time: f.time,
            positions: f.positions.to_vec(),
        })
        .collect();
    frames.push(NewFrame {
        time: 2.0,
        positions: vec![[0.0; 3]; 3],
    });
    more.set_frames(0, frames).unwrap();
    let P3d::Mlod(mm) = &more else { panic!() };
    assert!(matches!(mm.lods[0].taggs[3].data, TaggData::Animation { time, .. } if time == 2.0));
}

#[test]
fn huge_counts_fail_at_their_field_before_allocating() {
    let good = p3d::write(&P3d::Mlod(tiny_mlod(Signature::P3dm))).unwrap();
    // LOD count, point count, normal count, face count.
    for (at, field_offset) in [(8usize, 8u64), (24, 24), (28, 28), (32, 32)] {
        let mut d = good.clone();
        d[at..at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = p3d::read(&d).unwrap_err();
        assert!(
            matches!(e, Error::Malformed { offset, .. } if offset == field_offset),
            "field at {at}: {e}"
        );
    }
    // A tagg size.
    let pos = good.windows(12).position(|w| w == b"#SharpEdges#").unwrap() + 13;
    let mut d = good.clone();
    d[pos..pos + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = p3d::read(&d).unwrap_err();
    assert!(
        matches!(e, Error::Malformed { offset, .. } if offset == pos as u64),
        "{e}"
    );
}

#[test]
fn odol_lzss_compressed_arrays_are_walked() {
    // An ODOL v7 LOD whose vertex-flag array (300 × u32 = 1200 bytes) is LZSS-compressed:
    // one literal zero byte, then back-references repeating it.
    let mut lzss = Vec::new();
    let mut produced = 0usize;
    lzss.push(0b0000_0001);
    lzss.push(0);
    produced += 1;
    let mut bit = 1;
    while produced < 1200 {
        if bit == 8 {
            lzss.push(0);
            bit = 0;
        }
        lzss.extend([1, 0x0F]); // offset 1, length 18
        produced += 18;
        bit += 1;
    }
    let mut lod = Vec::new();
    lod.extend(300u32.to_le_bytes());
    lod.extend(&lzss);
    lod.extend(0u32.to_le_bytes()); // checksum of zeros
    for _ in 0..4 {
        lod.extend(0u32.to_le_bytes()); // uvs, points, normals... (uv count 0, points 0, normals 0)
    }
    lod.truncate(lod.len() - 4);
    lod.extend([0u8; 48]);
    lod.extend(0u32.to_le_bytes()); // textures
    lod.extend(0u32.to_le_bytes()); // edges
    lod.extend(0u32.to_le_bytes());
    lod.extend(0u32.to_le_bytes()); // faces
    lod.extend(0u32.to_le_bytes()); // face data size
    lod.extend(0u32.to_le_bytes()); // sections
    lod.extend(0u32.to_le_bytes()); // selections
    lod.extend(0u32.to_le_bytes()); // properties
    lod.extend(1u32.to_le_bytes()); // frames
    lod.extend(0.25f32.to_le_bytes());
    lod.extend(0u32.to_le_bytes());
    lod.extend([0u8; 12]); // colours, special
    lod.extend(0u32.to_le_bytes()); // proxies
    let mut file = b"ODOL".to_vec();
    file.extend(7u32.to_le_bytes());
    file.extend(1u32.to_le_bytes());
    file.extend(&lod);
    // The model info: the resolution, 144 bytes of fixed fields, six flag bytes, no masses,
    // four masses, the special LOD indices.
    file.extend(1.0f32.to_le_bytes());
    file.extend([0u8; 144 + 6]);
    file.extend(0u32.to_le_bytes());
    file.extend([0u8; 16]);
    file.extend([0xFFu8; 12]);
    let model = p3d::read(&file).unwrap();
    assert_eq!(model.frames(0)[0].time, 0.25);
    assert_eq!(p3d::write(&model).unwrap(), file);
    // A wrong checksum is malformed, at the checksum.
    let at = 12 + 4 + lzss.len();
    let mut bad = file.clone();
    bad[at] = 1;
    let e = p3d::read(&bad).unwrap_err();
    assert!(
        matches!(e, Error::Malformed { offset, .. } if offset == at as u64),
        "{e}"
    );
}

fn arb_vec3() -> impl Strategy<Value = [f32; 3]> {
    prop::array::uniform3(-1000.0f32..1000.0)
}

prop_compose! {
    fn arb_lod()(sig in prop::bool::ANY, np in 1usize..6, nf in 0usize..4, frames in 0usize..3,
                 seed in prop::collection::vec(arb_vec3(), 6), res in -1.0e16f32..1.0e16,
                 flags in any::<u32>(), names in prop::collection::vec("[a-z_\\\\.]{0,20}", 4))
                -> Lod {
        let signature = if sig { Signature::Sp3x } else { Signature::P3dm };
        let sp3x = sig;
        let points: Vec<Point> = (0..np).map(|i| Point { pos: seed[i], flags }).collect();
        let faces: Vec<Face> = (0..nf).map(|i| Face {
            n: 3 + (i as u32 % 2),
            vertices: (0..3 + i % 2).map(|k| VertexRef { point: (k % np) as u32, normal: 0, uv: [seed[k][0], seed[k][1]] }).collect(),
            unused_slots: if i % 2 == 0 && i > 0 { SlotBytes::new(&[i as u8; 16]) } else { SlotBytes::default() },
            flags,
            texture: Text::from(names[0].as_str()),
            texture_padding: Bytes::default(),
            material: if sp3x { None } else { Some(Text::from(names[1].as_str())) },
        }).collect();
        let tagg = |name: &str, data: TaggData| Tagg {
            active: if sp3x { None } else { Some(1) },
            name: Text::from(name),
            name_padding: Bytes::default(),
            data,
        };
        let mut taggs: Vec<Tagg> = (0..frames).map(|f| tagg("#Animation#", TaggData::Animation {
            time: f as f32 / 2.0, positions: (0..np).map(|i| seed[(i + f) % 6]).collect() })).collect();
        taggs.push(tagg(if names[2].is_empty() { "sel" } else { &names[2] },
            TaggData::Selection { points: Bytes(vec![1; np]), faces: Bytes(vec![0; nf]) }));
        taggs.push(tagg("#EndOfFile#", TaggData::EndOfFile));
        Lod { signature, header_size: 28, version: 0x100, flags: 0, header_extra: Bytes::default(),
              points, normals: vec![[0.0, 1.0, 0.0]], faces, taggs, resolution: res }
    }
}

proptest! {
    #[test]
    fn model_write_read_is_identity(lods in prop::collection::vec(arb_lod(), 1..3)) {
        let m = P3d::Mlod(Mlod { version: 0x101, lods, trailing: Bytes::default() });
        let bytes = p3d::write(&m).unwrap();
        prop_assert_eq!(p3d::read(&bytes).unwrap(), m);
    }

    #[test]
    fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..300), kind in 0..4usize) {
        let mut d = [
            b"ODOL\x07\0\0\0",
            b"ODOL\x32\0\0\0",
            b"ODOL\x49\0\0\0",
            b"MLOD\x01\x01\0\0",
        ][kind]
            .to_vec();
        d.extend(tail);
        let _ = p3d::read_with(&d, &Limits { max_items: 1000, max_bytes: 1 << 20, max_steps: 1000, max_input_bytes: 1 << 20, ..Limits::default() });
    }
}

#[test]
fn streamed_caches_equal_the_whole_cache_conversions() {
    let m = P3d::Mlod(tiny_mlod(Signature::P3dm));
    for axes in [scene::CacheAxes::ObjectBuilder, scene::CacheAxes::Raw] {
        let cache = scene::to_point_cache(&m, 0, axes, 3.0).unwrap();
        let whole = retroanim::formats::mdd::write(
            &retroanim::formats::mdd::Mdd::from_point_cache(&cache).unwrap(),
        )
        .unwrap();
        assert_eq!(
            scene::write_mdd(&m, 0, axes, 3.0, Vec::new()).unwrap(),
            whole
        );
        let whole = retroanim::formats::pc2::write(
            &retroanim::formats::pc2::Pc2::from_point_cache(&cache, 24.0).unwrap(),
        )
        .unwrap();
        let (streamed, header) = scene::write_pc2(&m, 0, axes, 3.0, 24.0, Vec::new()).unwrap();
        assert_eq!(streamed, whole);
        assert_eq!((header.start_frame, header.sample_rate), (0.0, 72.0));
    }
    let e = scene::write_mdd(
        &P3d::Mlod(Mlod {
            lods: vec![],
            ..tiny_mlod(Signature::P3dm)
        }),
        0,
        scene::CacheAxes::Raw,
        1.0,
        Vec::new(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no LOD 0"), "{e}");
    // The caller asked for a LOD the model lacks: a parameter error, not a failed conversion.
    assert!(matches!(e, retroanim::Error::Parameter { .. }), "{e:?}");
    let mut frames = P3d::Mlod(tiny_mlod(Signature::P3dm));
    let lods = frames.lod_count();
    let e = frames.set_frames(lods, Vec::new()).unwrap_err();
    assert!(matches!(e, retroanim::Error::Parameter { .. }), "{e:?}");
}

#[test]
fn validate_reports_undefined_point_flags_and_the_old_wiki_frame_layout() {
    let mut m = tiny_mlod(Signature::Sp3x);
    m.lods[0].points[2].flags = 0x8000_0000;
    // The 2010 wiki's SP3X frame: an extra u32 before the positions (8 + 12·P bytes).
    let mut data = vec![0u8; 8 + 12 * 3];
    data[4] = 3;
    m.lods[0].taggs[0].data = TaggData::Raw { data: Bytes(data) };
    let bytes = p3d::write(&P3d::Mlod(m)).unwrap();
    let model = p3d::read(&bytes).unwrap();
    assert_eq!(
        model.frames(0).len(),
        1,
        "the odd-sized frame is not taken for one"
    );
    let issues = p3d::validate(&model);
    let flags = issues.iter().find(|i| i.code == "point-flags").unwrap();
    // Header 28, points 0 and 1 (16 bytes each), then point 2's flags after its x, y, z.
    assert_eq!(flags.offset, 12 + 28 + 32 + 12);
    let size = issues.iter().find(|i| i.code == "tagg-size").unwrap();
    assert!(size.message.contains("nBones"), "{}", size.message);
}

#[test]
fn names_in_windows_code_pages_survive_the_json_dump() {
    let mut m = tiny_mlod(Signature::P3dm);
    // "kolečko" in cp1250 (č = 0xE8), not UTF-8.
    m.lods[0].taggs[3].name = Text::from(&b"kole\xe8ko"[..]);
    let model = retroanim::Model::P3d(P3d::Mlod(m));
    let json = model.to_json().unwrap();
    assert!(json.contains("6b6f6c65e86b6f"), "shown as hex bytes");
    let back = retroanim::Model::from_json(json.as_bytes()).unwrap();
    assert_eq!(back.write().unwrap(), model.write().unwrap());
}

/// A face with fewer than 3 vertices leaves 2 or more slots; whatever stale bytes they hold
/// are written back as they were read, and a wrong length is refused.
#[test]
fn unused_slot_bytes_of_any_face_size_round_trip() {
    for (n, unused) in [(3u32, 16usize), (2, 32), (1, 48), (0, 64)] {
        let mut mlod = tiny_mlod(Signature::P3dm);
        // Only the end tagg: the UV set's size follows the faces' vertex counts.
        mlod.lods[0]
            .taggs
            .retain(|t| t.name.as_bytes() == b"#EndOfFile#");
        let face = &mut mlod.lods[0].faces[0];
        face.n = n;
        face.vertices.truncate(n as usize);
        let stale: Vec<u8> = (0..unused).map(|i| 0x80 | i as u8).collect();
        face.unused_slots = SlotBytes::new(&stale);
        let mut m = P3d::Mlod(mlod);
        let bytes = p3d::write(&m).unwrap();
        let back = p3d::read(&bytes).unwrap();
        let P3d::Mlod(b) = &back else { panic!() };
        assert_eq!(
            b.lods[0].faces[0].unused_slots.as_bytes(),
            &stale[..],
            "n = {n}"
        );
        assert_eq!(p3d::write(&back).unwrap(), bytes);

        let P3d::Mlod(mlod) = &mut m else { panic!() };
        mlod.lods[0].faces[0].unused_slots = SlotBytes::new(&stale[..unused - 1]);
        assert!(
            p3d::write(&m).is_err(),
            "n = {n}: wrong slot length refused"
        );
    }
}

#[test]
fn validate_names_non_finite_frame_positions_where_they_are() {
    // Issue 38 item 19: a P3D whose animation frame holds NaN or an infinity passed validate
    // and then failed convert. Validate now names the frame's position and its byte offset.
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut m = tiny_mlod(Signature::P3dm);
        let Some(TaggData::Animation { positions, .. }) = m.lods[0]
            .taggs
            .iter_mut()
            .map(|t| &mut t.data)
            .find(|d| matches!(d, TaggData::Animation { .. }))
        else {
            panic!("the tiny model has frames")
        };
        positions[1][2] = bad;
        let bytes = p3d::write(&P3d::Mlod(m)).unwrap();
        let back = p3d::read(&bytes).unwrap();
        let found: Vec<_> = p3d::validate(&back)
            .into_iter()
            .filter(|i| i.code == "frame-not-finite")
            .collect();
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert_eq!(found[0].severity, Severity::Error);
        assert!(found[0]
            .message
            .contains("position 1 is not a finite number"));
        // The offset points at the frame's position 1 (its z is the bad float).
        let at = found[0].offset as usize;
        let z = f32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
        assert!(
            !z.is_finite() && z.is_nan() == bad.is_nan(),
            "{bad}: offset {at}"
        );
    }
}
