//! P3D frames streamed from the file (`formats::p3d::stream`): the same point caches as the
//! in-memory path, on the corpus and on a large synthetic LOD, and the same errors.

mod common;

use std::io::{BufReader, Cursor};

use retroanim::formats::p3d::{
    self, scene, stream::MlodFrames, Bytes, Face, Lod, Mlod, P3d, Point, Signature, SlotBytes,
    Tagg, TaggData, Text, VertexRef,
};
use retroanim::Error;

/// Both caches of every LOD with frames, streamed and in memory, must be byte-identical.
fn assert_same_caches(name: &str, data: &[u8], model: &P3d) {
    let mut src = MlodFrames::open(Cursor::new(data)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(src.lods().len(), model.lod_count(), "{name}");
    assert_eq!(src.default_lod(), model.default_lod(), "{name}");
    for lod in 0..model.lod_count() {
        let l = &src.lods()[lod];
        assert_eq!(l.resolution.to_bits(), model.resolution(lod).to_bits());
        let frames = model.frames(lod);
        assert_eq!(l.frames.len(), frames.len(), "{name} LOD {lod}");
        if frames.is_empty() {
            continue;
        }
        for axes in [scene::CacheAxes::ObjectBuilder, scene::CacheAxes::Raw] {
            let mem = scene::write_mdd(model, lod, axes, 2.0, Vec::new()).unwrap();
            let streamed = scene::write_mdd_streamed(&mut src, lod, axes, 2.0, Vec::new()).unwrap();
            assert!(mem == streamed, "{name} LOD {lod}: MDD differs");
            let mem = scene::write_pc2(model, lod, axes, 1.0, 24.0, Vec::new()).unwrap();
            let streamed =
                scene::write_pc2_streamed(&mut src, lod, axes, 1.0, 24.0, Vec::new()).unwrap();
            assert!(mem == streamed, "{name} LOD {lod}: PC2 differs");
        }
    }
}

#[test]
fn corpus_mlods_stream_the_same_caches_as_in_memory() {
    let mut seen = 0;
    for (name, path) in common::corpus_files("p3d-mlod") {
        let data = std::fs::read(&path).unwrap();
        match p3d::read(&data) {
            Ok(model) => {
                assert_same_caches(&name, &data, &model);
                seen += 1;
            }
            Err(e) => {
                let s = MlodFrames::open(Cursor::new(&data[..])).unwrap_err();
                assert_eq!(offset(&s), offset(&e), "{name}: {s} vs {e}");
            }
        }
    }
    eprintln!("{seen} corpus MLODs compared");
}

fn offset(e: &Error) -> Option<u64> {
    match e {
        Error::Malformed { offset, .. } | Error::Unsupported { offset, .. } => Some(*offset),
        _ => None,
    }
}

/// Two LODs (P3DM and SP3X) of `frames` frames × `points` points; frames are interleaved
/// with other taggs, and one `#Animation#` tagg of the wrong size is not a frame.
fn synthetic(frames: usize, points: usize) -> P3d {
    let lod = |signature: Signature, resolution: f32| {
        let sp3x = signature == Signature::Sp3x;
        let tagg = |name: &str, data| Tagg {
            active: (!sp3x).then_some(1),
            name: Text::from(name),
            name_padding: Bytes::default(),
            data,
        };
        let pos = |i: usize, k: usize| [i as f32, k as f32 * 0.5, -(i as f32) / 3.0 + resolution];
        let mut taggs = vec![tagg(
            "#Animation#",
            TaggData::Raw {
                data: Bytes(vec![0; 8]),
            },
        )];
        for k in 0..frames {
            taggs.push(tagg(
                "#Animation#",
                TaggData::Animation {
                    time: k as f32 / frames as f32,
                    positions: (0..points).map(|i| pos(i, k)).collect(),
                },
            ));
            if k % 7 == 3 {
                taggs.push(tagg(
                    "#Mass#",
                    TaggData::Mass {
                        masses: vec![1.5; points],
                    },
                ));
            }
        }
        taggs.push(tagg("#EndOfFile#", TaggData::EndOfFile));
        let v = |p: u32| VertexRef {
            point: p,
            normal: 0,
            uv: [0.25, 0.5],
        };
        Lod {
            signature,
            header_size: 32,
            version: 0x100,
            flags: 0,
            header_extra: Bytes(vec![9, 9, 9, 9]),
            points: (0..points)
                .map(|i| Point {
                    pos: pos(i, 0),
                    flags: 0,
                })
                .collect(),
            normals: vec![[0.0, 1.0, 0.0]; 2],
            faces: (0..points as u32 / 3)
                .map(|f| Face {
                    n: 3,
                    vertices: [v(3 * f), v(3 * f + 1), v(3 * f + 2)].into_iter().collect(),
                    unused_slots: SlotBytes::default(),
                    flags: 0,
                    texture: Text::from("t.paa"),
                    texture_padding: Bytes::default(),
                    material: (!sp3x).then(|| Text::from("m.rvmat")),
                })
                .collect(),
            taggs,
            resolution,
        }
    };
    P3d::Mlod(Mlod {
        version: 0x101,
        lods: vec![lod(Signature::Sp3x, 0.0), lod(Signature::P3dm, 1.0)],
        trailing: Bytes(vec![1, 2, 3]),
    })
}

#[test]
fn a_large_synthetic_lod_streams_from_a_file_like_the_in_memory_path() {
    let model = synthetic(600, 2000);
    let bytes = p3d::write(&model).unwrap();
    assert!(bytes.len() > 20_000_000, "{} bytes", bytes.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.p3d");
    std::fs::write(&path, &bytes).unwrap();
    drop(bytes);
    let file = BufReader::new(std::fs::File::open(&path).unwrap());
    let mut src = MlodFrames::open(file).unwrap();
    assert_eq!(
        src.lods()[1].frames.len(),
        600,
        "the wrong-size tagg is no frame"
    );
    assert_eq!(src.find_lod(1.0), Some(1));
    for lod in 0..2 {
        let mem = scene::write_mdd(
            &model,
            lod,
            scene::CacheAxes::ObjectBuilder,
            1.0,
            Vec::new(),
        )
        .unwrap();
        let streamed = scene::write_mdd_streamed(
            &mut src,
            lod,
            scene::CacheAxes::ObjectBuilder,
            1.0,
            Vec::new(),
        )
        .unwrap();
        assert!(mem == streamed, "LOD {lod}: MDD differs");
        let (mem, h1) =
            scene::write_pc2(&model, lod, scene::CacheAxes::Raw, 1.0, 30.0, Vec::new()).unwrap();
        let (streamed, h2) =
            scene::write_pc2_streamed(&mut src, lod, scene::CacheAxes::Raw, 1.0, 30.0, Vec::new())
                .unwrap();
        assert_eq!(h1, h2);
        assert!(mem == streamed, "LOD {lod}: PC2 differs");
    }
}

#[test]
fn a_small_synthetic_model_streams_like_the_in_memory_path() {
    let model = synthetic(5, 9);
    let bytes = p3d::write(&model).unwrap();
    assert_same_caches("synthetic", &bytes, &model);
}

#[test]
fn truncated_files_fail_at_the_offset_the_reader_names() {
    let model = synthetic(3, 6);
    let bytes = p3d::write(&model).unwrap();
    // Without the trailing bytes, every cut inside the LODs is an error for both.
    let end = bytes.len() - 3;
    for cut in 0..end {
        let d = &bytes[..cut];
        let e = p3d::read(d).unwrap_err();
        let s = MlodFrames::open(Cursor::new(d)).unwrap_err();
        assert_eq!(offset(&s), offset(&e), "cut at {cut}: {s} vs {e}");
    }
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let model = synthetic(2, 3);
    let mut bytes = p3d::write(&model).unwrap();
    // The LOD count, then the first LOD's point count.
    for at in [8usize, 12 + 12] {
        let mut d = bytes.clone();
        d[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = MlodFrames::open(Cursor::new(&d[..])).unwrap_err();
        assert_eq!(offset(&e), Some(at as u64), "{e}");
    }
    // The caller's limits hold as the in-memory reader's do: a frame index past max_items,
    // points past max_items, each refused with the limit named.
    let frames = synthetic(3, 6);
    let d = p3d::write(&frames).unwrap();
    let tight = |max_items| retroanim::Limits {
        max_items,
        ..retroanim::Limits::default()
    };
    MlodFrames::open_with(Cursor::new(&d[..]), &tight(6)).unwrap();
    for max in [2, 5] {
        let e = MlodFrames::open_with(Cursor::new(&d[..]), &tight(max)).unwrap_err();
        assert!(
            matches!(e, retroanim::Error::LimitExceeded { limit, .. } if limit == max),
            "{max}: {e:?}"
        );
        assert!(
            p3d::read_with(&d, &tight(max)).is_err(),
            "the reader agrees"
        );
    }
    bytes.truncate(4);
    assert!(MlodFrames::open(Cursor::new(&bytes[..])).is_err());
}

/// Frames `count` of `points` points, seconds `k / 4`.
fn new_frames(count: usize, points: usize) -> Vec<(f32, Vec<[f32; 3]>)> {
    (0..count)
        .map(|k| {
            let p = (0..points)
                .map(|i| [k as f32, i as f32, -(k as f32) - 0.5])
                .collect();
            (k as f32 / 4.0, p)
        })
        .collect()
}

/// Streamed replacement of LOD `lod`'s frames must give the bytes of the in-memory one.
fn assert_same_replacement(name: &str, data: &[u8], lod: usize, count: usize) {
    let mut model = p3d::read(data).unwrap();
    let points = model.frame_width(lod).unwrap();
    let frames = new_frames(count, points);
    let axes = scene::CacheAxes::ObjectBuilder;
    let borrowed = frames.iter().map(|(t, p)| (*t, &p[..]));
    scene::apply_frames(&mut model, lod, points, borrowed, axes, 2.0).unwrap();
    let mem = p3d::write(&model).unwrap();
    let mut base = MlodFrames::open(Cursor::new(data)).unwrap();
    let streamed = scene::apply_frames_streamed(
        &mut base,
        lod,
        points,
        count,
        |k, buf| {
            buf.extend_from_slice(&frames[k].1);
            Ok(frames[k].0)
        },
        axes,
        2.0,
        Vec::new(),
    )
    .unwrap();
    assert!(
        mem == streamed,
        "{name} LOD {lod}, {count} frames: streamed replacement differs"
    );
}

#[test]
fn streamed_frame_replacement_matches_the_in_memory_one() {
    let bytes = p3d::write(&synthetic(4, 7)).unwrap();
    for lod in 0..2 {
        for count in [0, 1, 4, 6] {
            assert_same_replacement("synthetic", &bytes, lod, count);
        }
    }
    // A LOD without frames takes them before #EndOfFile#.
    let no_frames = p3d::write(&synthetic(0, 5)).unwrap();
    assert_same_replacement("synthetic without frames", &no_frames, 1, 3);
    for (name, path) in common::corpus_files("p3d-mlod") {
        let data = std::fs::read(&path).unwrap();
        let Ok(model) = p3d::read(&data) else {
            continue;
        };
        // Only files that round-trip are comparable byte for byte (all well-formed ones do).
        if p3d::write(&model).ok().as_deref() != Some(&data[..]) {
            continue;
        }
        let lod = model.default_lod();
        let n = model.frames(lod).len();
        assert_same_replacement(&name, &data, lod, n);
        assert_same_replacement(&name, &data, lod, n / 2);
        assert_same_replacement(&name, &data, lod, n + 2);
    }
}

#[test]
fn a_point_count_mismatch_names_both_counts() {
    let bytes = p3d::write(&synthetic(2, 5)).unwrap();
    let mut base = MlodFrames::open(Cursor::new(&bytes[..])).unwrap();
    let e = scene::apply_frames_streamed(
        &mut base,
        1,
        4,
        1,
        |_, _| Ok(0.0),
        scene::CacheAxes::Raw,
        1.0,
        Vec::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("4 points") && e.contains("has 5"), "{e}");
}
