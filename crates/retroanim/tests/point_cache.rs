//! MDD and PC2: the corpus MDDs (counts, the uncounted rest frame, byte-exact round trip,
//! MDD → PC2 → MDD), hostile input, and write → read identity for any model.

mod common;

use proptest::prelude::*;
use retroanim::formats::{mdd, pc2};
use retroanim::{report::has_errors, Error, Format, Limits};

fn corpus_mdds() -> Vec<(String, Vec<u8>)> {
    common::corpus_files("mdd")
        .into_iter()
        .map(|(name, path)| {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, bytes)
        })
        .collect()
}

#[test]
fn corpus_mdds_read_validate_and_round_trip() {
    let mut golden = String::new();
    let mut seen = 0;
    for (name, bytes) in corpus_mdds() {
        assert_eq!(retroanim::detect(&bytes), Some(Format::Mdd), "{name}");
        let m = mdd::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let issues = mdd::validate(&m);
        assert!(!has_errors(&issues), "{name}: {issues:#?}");
        assert!(
            mdd::write(&m).unwrap() == bytes,
            "{name}: round trip differs"
        );
        let s = m.summary();
        if name.ends_with("female_char.mdd") {
            assert_eq!(
                (s.frames, s.points, s.rest_frame),
                (120, 299, false),
                "{name}"
            );
            assert!(issues.is_empty(), "{name}: {issues:?}");
            // Written at 30 fps from 0.
            assert_eq!(m.times[1], (1.0f64 / 30.0) as f32);
            seen += 1;
        }
        if name.ends_with("cloth.mdd") {
            // The header counts 41 frames; the file holds a 42nd: the rest frame, first.
            assert_eq!(
                (s.frames, s.points, s.rest_frame),
                (41, 2500, true),
                "{name}"
            );
            assert_eq!(m.frames.len(), 41);
            assert_eq!(m.rest_frame.as_ref().unwrap(), &m.frames[0]);
            let codes: Vec<_> = issues.iter().map(|i| i.code.as_str()).collect();
            assert_eq!(codes, ["uncounted-rest-frame"], "{name}");
            assert_eq!(issues[0].offset, 8 + 4 * 41);
            seen += 1;
        }
        // The streaming reader sees the same frames.
        let mut r =
            mdd::StreamReader::new(&bytes[..], bytes.len() as u64, &Limits::default()).unwrap();
        assert_eq!(r.times(), &m.times[..]);
        let mut buf = Vec::new();
        let mut frames = Vec::new();
        while let Some(block) = r.next_frame(&mut buf).unwrap() {
            if let mdd::Block::Frame { .. } = block {
                frames.push(buf.clone());
            }
        }
        assert!(frames == m.frames, "{name}: streamed frames differ");
        golden.push_str(&format!("{name}\t{}\n", serde_json::to_string(&s).unwrap()));
    }
    if !golden.is_empty() {
        assert_eq!(
            seen, 3,
            "female_char.mdd (×2) and cloth.mdd are in the corpus"
        );
        common::check_golden("mdd_summaries.tsv", &golden);
    }
}

#[test]
fn mdd_to_pc2_to_mdd_is_lossless() {
    for (name, bytes) in corpus_mdds() {
        let m = mdd::read(&bytes).unwrap();
        let cache = m.to_point_cache();
        let fps = cache.guess_fps().unwrap();
        assert_eq!(
            fps,
            if name.ends_with("cloth.mdd") {
                24.0
            } else {
                30.0
            },
            "{name}"
        );
        let p = pc2::Pc2::from_point_cache(&cache, fps).unwrap();
        assert_eq!((p.start_frame, p.sample_rate), (0.0, 1.0), "{name}");
        let pc2_bytes = pc2::write(&p).unwrap();
        assert_eq!(
            pc2_bytes.len(),
            32 + 12 * m.points as usize * m.frames.len()
        );
        let back = pc2::read(&pc2_bytes).unwrap();
        assert_eq!(back, p);
        let again = mdd::Mdd::from_point_cache(&back.to_point_cache(fps)).unwrap();
        // Every counted frame and every time comes back bit for bit; only the uncounted rest
        // frame has no place in PC2.
        assert!(again.frames == m.frames, "{name}");
        let bits = |t: &[f32]| t.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&again.times), bits(&m.times), "{name}");
        if m.rest_frame.is_none() {
            assert!(mdd::write(&again).unwrap() == bytes, "{name}");
        }
    }
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    for (name, bytes) in corpus_mdds() {
        let m = mdd::read(&bytes).unwrap();
        // Every cut shorter than the file fails with an offset inside it.
        for cut in (0..bytes.len())
            .step_by(bytes.len() / 97 + 1)
            .chain([bytes.len() - 1])
        {
            match mdd::read(&bytes[..cut]) {
                Err(e @ Error::Malformed { .. }) => {
                    assert!(e.offset().unwrap() <= cut as u64, "{name} cut {cut}: {e}")
                }
                other => panic!("{name} cut at {cut}: {other:?}"),
            }
        }
        // Flipping a header bit changes the counts: an error, or (rarely) another valid file.
        for bit in 0..64 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 0x80 >> (bit % 8);
            if let Err(e) = mdd::read(&b) {
                assert!(e.offset().is_some(), "{name} bit {bit}: {e}");
            }
        }
        // Bits in the data only change values.
        let mut b = bytes.clone();
        let last = b.len() - 1;
        b[last] ^= 1;
        assert_eq!(mdd::read(&b).unwrap().frames.len(), m.frames.len());
        // The same bytes as PC2 samples, cut anywhere.
        let p =
            pc2::write(&pc2::Pc2::from_point_cache(&m.to_point_cache(), 30.0).unwrap()).unwrap();
        for cut in (0..p.len()).step_by(p.len() / 53 + 1) {
            let e = pc2::read(&p[..cut]).unwrap_err();
            assert!(
                e.offset().is_some_and(|o| o <= cut as u64),
                "{name} pc2 cut {cut}: {e}"
            );
        }
    }
}

#[test]
fn counts_larger_than_the_file_allocate_nothing() {
    // 2^31-1 frames of 2^31-1 points in 12 bytes: refused before any allocation.
    let mut b = vec![0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff];
    b.extend_from_slice(&[0; 4]);
    assert!(mdd::read(&b).is_err());
    let mut p = b"POINTCACHE2\0".to_vec();
    for v in [1i32, i32::MAX, 0, 0, i32::MAX] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    let e = pc2::read(&p).unwrap_err();
    assert!(
        matches!(e, Error::Malformed { .. } | Error::LimitExceeded { .. }),
        "{e}"
    );
    let tight = Limits {
        max_items: 10,
        ..Limits::default()
    };
    let small = mdd::write(&mdd::Mdd {
        points: 11,
        times: vec![0.0],
        rest_frame: None,
        frames: vec![vec![[0.0; 3]; 11]],
    })
    .unwrap();
    assert!(matches!(
        mdd::read_with(&small, &tight),
        Err(Error::LimitExceeded { .. })
    ));
}

#[test]
fn model_json_round_trips_through_read_any() {
    let m = mdd::Mdd {
        points: 1,
        times: vec![0.0, 0.5],
        rest_frame: Some(vec![[1.0, 2.0, 3.0]]),
        frames: vec![vec![[1.0, 2.0, 3.0]], vec![[4.0, 5.0, 6.0]]],
    };
    let model = retroanim::read_any(&mdd::write(&m).unwrap()).unwrap();
    let json = model.to_json().unwrap();
    let back = retroanim::Model::from_json(json.as_bytes()).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.write().unwrap(), mdd::write(&m).unwrap());
}

fn frames(points: usize, n: usize) -> impl Strategy<Value = Vec<Vec<[f32; 3]>>> {
    let p = prop::array::uniform3(-1.0e6f32..1.0e6);
    prop::collection::vec(prop::collection::vec(p, points..=points), n..=n)
}

fn any_mdd() -> impl Strategy<Value = mdd::Mdd> {
    (1usize..6, 0usize..5, any::<bool>())
        .prop_flat_map(|(points, n, rest)| {
            (
                Just(points),
                prop::collection::vec(0.0f32..100.0, n..=n),
                frames(points, n),
                frames(points, usize::from(rest)),
            )
        })
        .prop_map(|(points, times, frames, rest)| mdd::Mdd {
            points: points as u32,
            times,
            rest_frame: rest.into_iter().next(),
            frames,
        })
}

fn any_pc2() -> impl Strategy<Value = pc2::Pc2> {
    (0usize..6, 0usize..5)
        .prop_flat_map(|(points, n)| {
            (
                Just(points),
                any::<i32>(),
                -1000.0f32..1000.0,
                0.01f32..10.0,
                frames(points, n),
            )
        })
        .prop_map(
            |(points, version, start_frame, sample_rate, frames)| pc2::Pc2 {
                version,
                points: points as u32,
                start_frame,
                sample_rate,
                frames,
            },
        )
}

proptest! {
    #[test]
    fn mdd_write_read_identity(m in any_mdd()) {
        let bytes = mdd::write(&m).unwrap();
        prop_assert_eq!(bytes.len() as u64, m.file_size());
        prop_assert_eq!(mdd::read(&bytes).unwrap(), m);
    }

    #[test]
    fn pc2_write_read_identity(p in any_pc2()) {
        let bytes = pc2::write(&p).unwrap();
        prop_assert_eq!(pc2::read(&bytes).unwrap(), p.clone());
        let mut r = pc2::StreamReader::new(&bytes[..], &Limits::default()).unwrap();
        let mut buf = Vec::new();
        let mut n = 0;
        while r.next_frame(&mut buf).unwrap().is_some() {
            prop_assert_eq!(&buf, &p.frames[n]);
            n += 1;
        }
        prop_assert_eq!(n, p.frames.len());
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = mdd::read(&data);
        let _ = pc2::read(&data);
        let mut pc = b"POINTCACHE2\0".to_vec();
        pc.extend_from_slice(&data);
        let _ = pc2::read(&pc);
        let _ = mdd::StreamReader::new(&data[..], data.len() as u64, &Limits::default())
            .map(|mut r| { let mut b = Vec::new(); while let Ok(Some(_)) = r.next_frame(&mut b) {} });
    }
}

#[test]
fn corpus_mdds_export_to_valid_gltf() {
    use retroanim::export::{gltf, point_cache_scene};
    use retroanim::scene::Interpolation;
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in corpus_mdds() {
        let m = mdd::read(&bytes).unwrap();
        let scene = point_cache_scene(&m.to_point_cache(), "cache", Interpolation::Linear);
        assert_eq!(scene.meshes[0].target_names.len(), m.frames.len(), "{name}");
        let glb = gltf::write_glb(&scene).unwrap();
        let path = dir.path().join("cache.glb");
        std::fs::write(&path, &glb).unwrap();
        if let Some(report) = common::assert_khronos_clean(&path) {
            assert_eq!(report["info"]["totalVertexCount"], m.points, "{name}");
            assert_eq!(report["info"]["animationCount"], 1, "{name}");
        }
    }
}
