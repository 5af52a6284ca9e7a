//! Binarised RTMs (BMTR) built by hand from the layout table in docs/rtm.md (not by our
//! writer), for versions 3, 4 and 5, raw and LZO-compressed arrays: every field decodes to the
//! values put in, the frames become the matrices the documented conventions give (composed
//! through the skeleton), the glTF export passes the Khronos validator with its joints there,
//! files write back byte for byte, and damaged ones fail naming BMTR and the offset.

mod common;

use common::gltf_read::Gltf;
use retroanim::convert::{self, Options};
use retroanim::formats::rtm::{self, Bmtr, PlayOptions, Rtm, Skeleton};
use retroanim::{Error, Format, Severity};

/// IEEE half-precision bit patterns (sign, 5-bit exponent biased by 15, 10-bit fraction).
const H0: u16 = 0x0000;
const H_QUARTER: u16 = 0x3400;
const H_HALF: u16 = 0x3800;
const H_ONE: u16 = 0x3C00;
const H_TWO: u16 = 0x4000;
const H_INF: u16 = 0x7C00;

/// One stored transform: quaternion × 16384, translation as halves.
#[derive(Clone, Copy)]
struct T {
    q: [i16; 4],
    p: [u16; 3],
}

const IDENTITY: T = T {
    q: [0, 0, 0, 16384],
    p: [H0, H0, H0],
};

fn t(q: [f64; 4], p: [u16; 3]) -> T {
    T {
        q: q.map(|v| (v * 16384.0).round() as i16),
        p,
    }
}

fn transforms(list: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    for t in list {
        t.q.iter().for_each(|v| out.extend(v.to_le_bytes()));
        t.p.iter().for_each(|v| out.extend(v.to_le_bytes()));
    }
    out
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// LZO1X, literals only: a first byte of 17 + n for n ≤ 238, else instruction 0 with a
/// run-length extension (n − 18 as zeros worth 255 each and a final non-zero byte); then the
/// end marker 0x11 0 0.
fn lzo_literals(data: &[u8]) -> Vec<u8> {
    let n = data.len();
    let mut out = Vec::new();
    if n <= 238 {
        out.push(17 + n as u8);
    } else {
        out.push(0);
        let mut rest = n - 18;
        while rest > 255 {
            out.push(0);
            rest -= 255;
        }
        out.push(rest as u8);
    }
    out.extend(data);
    out.extend([0x11, 0, 0]);
    out
}

/// The header up to the bone names: displacement (0.25, 0, 1.5), the word after the frame
/// count 7.
fn header(version: u32, frames: u32, bones: &[&str]) -> Vec<u8> {
    let mut b = b"BMTR".to_vec();
    b.extend(version.to_le_bytes());
    b.push(1);
    b.extend(f32s(&[0.25, 0.0, 1.5]));
    b.extend(frames.to_le_bytes());
    b.extend(7u32.to_le_bytes());
    b.extend((bones.len() as u32).to_le_bytes());
    b.extend((bones.len() as u32).to_le_bytes());
    for name in bones {
        b.extend(name.as_bytes());
        b.push(0);
    }
    b
}

/// The version 4+ property block.
fn properties(list: &[(&str, f32, &str)]) -> Vec<u8> {
    let mut b = 0u32.to_le_bytes().to_vec();
    b.extend((list.len() as u32).to_le_bytes());
    for (name, phase, value) in list {
        b.extend(0xFFFF_FFFFu32.to_le_bytes());
        b.extend(name.as_bytes());
        b.push(0);
        b.extend(phase.to_le_bytes());
        b.extend(value.as_bytes());
        b.push(0);
    }
    b
}

/// An array: count, the flag byte when given, the payload. Returns the payload's offset.
fn array(b: &mut Vec<u8>, count: usize, flag: Option<u8>, payload: &[u8]) -> usize {
    b.extend((count as u32).to_le_bytes());
    b.extend(flag);
    let at = b.len();
    b.extend(payload);
    at
}

const BONES: [&str; 2] = ["pelvis", "spine"];

/// The frames of [`v3`]: pelvis and spine at phases 0, 0.5, 1.
fn v3_frames() -> Vec<(f32, [T; 2])> {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let spine = t([0.5, 0.5, 0.5, 0.5], [H_HALF, H_QUARTER, H0]);
    vec![
        (
            0.0,
            [
                T {
                    p: [H0, H_ONE, H0],
                    ..IDENTITY
                },
                spine,
            ],
        ),
        (
            0.5,
            [t([1.0, 0.0, 0.0, 0.0], [H_ONE, H_ONE, H_HALF]), spine],
        ),
        (1.0, [t([0.0, h, 0.0, h], [H0, H_ONE, H_TWO]), IDENTITY]),
    ]
}

/// A version 3 file of three raw frames; returns it and the offset of each frame's payload.
fn v3() -> (Vec<u8>, Vec<usize>) {
    let frames = v3_frames();
    let mut b = header(3, 3, &BONES);
    let phases: Vec<f32> = frames.iter().map(|f| f.0).collect();
    array(&mut b, 3, None, &f32s(&phases));
    let at = frames
        .iter()
        .map(|(_, ts)| array(&mut b, 2, None, &transforms(ts)))
        .collect();
    (b, at)
}

fn bmtr(bytes: &[u8]) -> Bmtr {
    match rtm::read(bytes).unwrap() {
        Rtm::Bmtr(b) => b,
        Rtm::Mlod(_) => panic!("built binarised"),
    }
}

type Affine = ([[f64; 3]; 3], [f64; 3]);

/// The documented reading: quaternion (x, −y, z, w) normalised, position (−x, y, −z).
fn local(t: &T) -> Affine {
    let q = t.q.map(|v| v as f64 / 16384.0);
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let (x, y, z, w) = (q[0] / n, -q[1] / n, q[2] / n, q[3] / n);
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let h = t.p.map(|b| rtm::half_to_f32(b) as f64);
    (r, [-h[0], h[1], -h[2]])
}

/// `W = W_parent · L`.
fn compose(parent: &Affine, l: &Affine) -> Affine {
    let a = &parent.0;
    let r = [0, 1, 2].map(|i| [0, 1, 2].map(|j| (0..3).map(|k| a[i][k] * l.0[k][j]).sum()));
    let p = [0, 1, 2].map(|i| parent.1[i] + (0..3).map(|k| a[i][k] * l.1[k]).sum::<f64>());
    (r, p)
}

/// The RTM's 12 numbers: rotation columns, then the position.
fn twelve((r, p): &Affine) -> [f64; 12] {
    let mut m = [0.0; 12];
    for j in 0..3 {
        for i in 0..3 {
            m[3 * j + i] = r[i][j];
        }
        m[9 + j] = p[j];
    }
    m
}

fn assert_near(got: &[f32; 12], want: &[f64; 12], tol: f64, what: &str) {
    for k in 0..12 {
        assert!(
            (got[k] as f64 - want[k]).abs() <= tol,
            "{what}: element {k} is {} not {}",
            got[k],
            want[k]
        );
    }
}

fn skeleton() -> Skeleton {
    Skeleton {
        name: "Test".into(),
        bones: vec![
            ("Pelvis".into(), "".into()),
            ("Spine".into(), "Pelvis".into()),
        ],
    }
}

#[test]
fn v3_raw_frames_decode_to_the_values_put_in_and_write_back() {
    let (bytes, _) = v3();
    let b = bmtr(&bytes);
    assert_eq!((b.version, b.flag, b.reserved), (3, 1, 7));
    assert_eq!(b.displacement, [0.25, 0.0, 1.5]);
    assert_eq!(b.bones, BONES);
    assert_eq!(b.phases, [0.0, 0.5, 1.0]);
    assert!(b.properties.is_none() && !b.flagged);
    for (f, (_, ts)) in v3_frames().iter().enumerate() {
        for (k, t) in ts.iter().enumerate() {
            let got = &b.frames[f].transforms[k];
            assert_eq!(
                (got.rotation, got.position),
                (t.q, t.p),
                "frame {f} bone {k}"
            );
        }
    }
    let spine = b.frames[0].transforms[1];
    assert_eq!(spine.quaternion(), [0.5; 4]);
    assert_eq!(spine.translation(), [0.5, 0.25, 0.0]);
    assert_eq!(rtm::write(&Rtm::Bmtr(b.clone())).unwrap(), bytes);
    let s = Rtm::Bmtr(b).summary();
    assert_eq!(s.form, "BMTR v3");
    assert_eq!((s.frames, s.bones, s.properties), (3, 2, None));
    assert_eq!((s.phases, s.lzo_arrays), (Some([0.0, 1.0]), Some(0)));
}

#[test]
fn frames_become_the_documented_matrices_flat_or_through_the_skeleton() {
    let (bytes, _) = v3();
    let r = rtm::read(&bytes).unwrap();
    // Stated by hand: an identity quaternion leaves the axes; x and z of the translation flip.
    let (flat, notes) = r.to_mlod(None);
    assert_eq!(
        flat.frames[0].transforms[0].matrix,
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    );
    // (0.5, 0.5, 0.5, 0.5) read as (0.5, −0.5, 0.5, 0.5): x → z, y → −x, z → −y.
    assert_eq!(
        flat.frames[0].transforms[1].matrix,
        [0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 0.0, -1.0, 0.0, -0.5, 0.25, 0.0]
    );
    // 180° about x: y and z turn over.
    assert_eq!(
        flat.frames[1].transforms[0].matrix,
        [1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -1.0, -1.0, 1.0, -0.5]
    );
    assert!(notes.iter().any(|n| n.code == "bmtr-no-skeleton"));
    assert_eq!(flat.bones[1].name, "spine");
    assert_eq!(flat.displacement, [0.25, 0.0, 1.5]);

    let skel = skeleton();
    let (nested, notes) = r.to_mlod(Some(&skel));
    assert!(notes.is_empty(), "{notes:?}");
    for (f, (phase, ts)) in v3_frames().iter().enumerate() {
        assert_eq!(nested.frames[f].phase, *phase);
        let pelvis = local(&ts[0]);
        let spine = compose(&pelvis, &local(&ts[1]));
        let what = format!("frame {f}");
        assert_near(
            &nested.frames[f].transforms[0].matrix,
            &twelve(&pelvis),
            1e-4,
            &what,
        );
        assert_near(
            &nested.frames[f].transforms[1].matrix,
            &twelve(&spine),
            1e-4,
            &what,
        );
        // The player returns the frames at their own phases.
        let pose = rtm::pose(&nested, *phase, PlayOptions::default()).unwrap();
        assert_eq!(pose[1], nested.frames[f].transforms[1].matrix);
    }
    // The spine follows the pelvis turned over about x: its offset (−0.5, 0.25, 0) becomes
    // (−0.5, −0.25, 0) from the pelvis at (−1, 1, −0.5).
    let p = &nested.frames[1].transforms[1].matrix[9..];
    assert_eq!(p, [-1.5, 0.75, -0.5]);
}

#[test]
fn v5_flagged_arrays_read_raw_and_lzo_streams_and_write_them_back() {
    let a = t([0.0, 0.0, 0.0, 1.0], [H_ONE, H0, H0]);
    let b2 = t([0.5, 0.5, 0.5, 0.5], [H0, H_TWO, H0]);
    let bones = ["pelvis", "spine", "head"];
    let mut bytes = header(5, 2, &bones);
    bytes.extend(properties(&[("StepSound", 0.5, "left")]));
    array(&mut bytes, 2, Some(0), &f32s(&[0.0, 1.0]));
    // Frame 0: 14 literals (a), a 14-byte match 14 back (a again), then 14 literals (b2).
    let mut stream = vec![17 + 14];
    stream.extend(transforms(&[a]));
    stream.extend([32 + 12, 13 << 2, 0]);
    stream.push(14 - 3);
    stream.extend(transforms(&[b2]));
    stream.extend([0x11, 0, 0]);
    array(&mut bytes, 3, Some(2), &stream);
    array(
        &mut bytes,
        3,
        Some(2),
        &lzo_literals(&transforms(&[b2, a, IDENTITY])),
    );
    let b = bmtr(&bytes);
    assert!(b.flagged);
    let p = &b.properties.as_ref().unwrap().properties;
    assert_eq!(
        (
            p[0].unknown,
            p[0].name.as_str(),
            p[0].phase,
            p[0].value.as_str()
        ),
        (0xFFFF_FFFF, "StepSound", 0.5, "left")
    );
    let raw = |f: usize| -> Vec<([i16; 4], [u16; 3])> {
        b.frames[f]
            .transforms
            .iter()
            .map(|t| (t.rotation, t.position))
            .collect()
    };
    assert_eq!(raw(0), [(a.q, a.p), (a.q, a.p), (b2.q, b2.p)]);
    assert_eq!(raw(1), [(b2.q, b2.p), (a.q, a.p), (IDENTITY.q, IDENTITY.p)]);
    assert!(!b.phases_packing.lzo && b.frames.iter().all(|f| f.packing.lzo));
    // The streams as read come back: byte for byte, matches and all.
    assert_eq!(rtm::write(&Rtm::Bmtr(b.clone())).unwrap(), bytes);
    let r = Rtm::Bmtr(b.clone());
    let s = r.summary();
    assert_eq!(
        (s.form.as_str(), s.properties, s.lzo_arrays),
        ("BMTR v5", Some(1), Some(2))
    );
    let (m, _) = r.to_mlod(None);
    let mdat = m.mdat.as_ref().unwrap();
    assert_eq!(mdat.properties[0].name, "StepSound");

    // A changed frame is packed anew (one literal run) and reads back changed.
    let mut edited = b;
    edited.frames[0].transforms[2] = edited.frames[0].transforms[0];
    let out = rtm::write(&Rtm::Bmtr(edited.clone())).unwrap();
    let again = bmtr(&out);
    assert_eq!(again.frames[0].transforms, edited.frames[0].transforms);
    assert_eq!(
        again.frames[0].packing.stream,
        lzo_literals(&transforms(&[a, a, a]))
    );
    assert_eq!(again.frames[1], edited.frames[1]);
}

#[test]
fn unflagged_arrays_of_1024_bytes_or_more_are_lzo() {
    for (n, packed) in [(73usize, false), (74, true)] {
        let names: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut bytes = header(3, 2, &names);
        array(&mut bytes, 2, None, &f32s(&[0.0, 1.0]));
        for f in 0..2 {
            let ts: Vec<T> = (0..n)
                .map(|i| T {
                    p: [H0, (i + f) as u16, H0],
                    ..IDENTITY
                })
                .collect();
            let raw = transforms(&ts);
            assert_eq!(raw.len() >= 1024, packed);
            let payload = if packed { lzo_literals(&raw) } else { raw };
            array(&mut bytes, n, None, &payload);
        }
        let b = bmtr(&bytes);
        assert_eq!(b.frames[1].transforms[n - 1].position[1], n as u16);
        assert_eq!(b.frames[0].packing.lzo, packed, "{n} bones");
        assert_eq!(rtm::write(&Rtm::Bmtr(b.clone())).unwrap(), bytes);
        assert_eq!(
            Rtm::Bmtr(b).summary().lzo_arrays,
            Some(if packed { 2 } else { 0 })
        );
    }
}

#[test]
fn v4_reads_with_or_without_array_flags() {
    for flagged in [true, false] {
        let mut bytes = header(4, 1, &BONES);
        bytes.extend(properties(&[]));
        let flag = flagged.then_some(0u8);
        array(&mut bytes, 1, flag, &f32s(&[0.0]));
        array(&mut bytes, 2, flag, &transforms(&[IDENTITY, IDENTITY]));
        let b = bmtr(&bytes);
        assert_eq!(b.flagged, flagged);
        assert_eq!(b.properties.as_ref().unwrap().properties.len(), 0);
        assert_eq!(rtm::write(&Rtm::Bmtr(b.clone())).unwrap(), bytes);
        let form = Rtm::Bmtr(b).summary().form;
        let want = if flagged {
            "BMTR v4 (flagged arrays)"
        } else {
            "BMTR v4"
        };
        assert_eq!(form, want);
    }
}

#[test]
fn gltf_export_passes_the_validator_with_the_joints_where_the_skeleton_puts_them() {
    let (bytes, _) = v3();
    let model = retroanim::read_any(&bytes).unwrap();
    let mut opts = Options::default();
    opts.rtm.skeletons = Some(vec![skeleton()]);
    let out = convert::convert(&model, Format::Gltf, &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bmtr.gltf");
    std::fs::write(&path, &out.bytes).unwrap();
    common::assert_khronos_clean(&path);
    let g = Gltf::parse(&out.bytes);
    let nodes = g.json["nodes"].as_array().unwrap();
    for (f, (_, ts)) in v3_frames().iter().enumerate() {
        let worlds = g.world_matrices(Some((0, f)));
        let pelvis = local(&ts[0]);
        let spine = compose(&pelvis, &local(&ts[1]));
        for (name, want) in [("pelvis", pelvis), ("spine", spine)] {
            let node = nodes.iter().position(|n| n["name"] == name).unwrap();
            let w = twelve(&want).map(|v| v as f32);
            let want = common::rtm_scene_matrix(&w);
            for k in 0..16 {
                assert!(
                    (worlds[node][k] - want[k]).abs() < 1e-4,
                    "frame {f} {name}: element {k} {} vs {}",
                    worlds[node][k],
                    want[k]
                );
            }
        }
    }
    // Without the skeleton the export says the bones were taken flat.
    let flat = convert::convert(&model, Format::Glb, &Options::default()).unwrap();
    assert!(flat.notes.iter().any(|n| n.code == "bmtr-no-skeleton"));
}

#[test]
fn validation_names_the_offsets_of_bad_phases_quaternions_and_translations() {
    let mut bytes = header(3, 2, &["pelvis", "Pelvis"]);
    let phases_at = array(&mut bytes, 2, None, &f32s(&[0.5, 0.25]));
    array(&mut bytes, 2, None, &transforms(&[IDENTITY, IDENTITY]));
    let bad = [
        T {
            q: [0; 4],
            ..IDENTITY
        },
        T {
            p: [H0, H_INF, H0],
            ..IDENTITY
        },
    ];
    let frame1 = array(&mut bytes, 2, None, &transforms(&bad));
    let issues = rtm::validate(&rtm::read(&bytes).unwrap());
    let find = |code: &str| {
        issues
            .iter()
            .find(|i| i.code == code)
            .unwrap_or_else(|| panic!("no {code} in {issues:?}"))
    };
    assert_eq!(find("phase-order").offset, phases_at as u64 + 4);
    assert_eq!(find("bone-name-duplicate").offset, 37 + 7);
    let zero = find("quaternion-zero");
    assert_eq!(
        (zero.offset, zero.severity),
        (frame1 as u64, Severity::Error)
    );
    assert_eq!(find("translation-not-finite").offset, frame1 as u64 + 14);
    assert_eq!(find("bmtr-parent-relative").severity, Severity::Info);
    // A clean file has no warnings or errors.
    let clean = rtm::validate(&rtm::read(&v3().0).unwrap());
    assert!(
        clean.iter().all(|i| i.severity == Severity::Info),
        "{clean:?}"
    );
}

/// The error's offset, and that its text names BMTR.
fn fails_at(bytes: &[u8]) -> (u64, Error) {
    let e = rtm::read(bytes).unwrap_err();
    assert!(e.to_string().contains("BMTR"), "{e}");
    (e.offset().expect("an offset"), e)
}

#[test]
fn every_truncation_fails_naming_bmtr_and_an_offset_within_the_bytes() {
    let (v3, _) = v3();
    let mut v5 = header(5, 1, &BONES);
    v5.extend(properties(&[("a", 0.0, "b")]));
    array(&mut v5, 1, Some(2), &lzo_literals(&f32s(&[0.0])));
    array(
        &mut v5,
        2,
        Some(2),
        &lzo_literals(&transforms(&[IDENTITY; 2])),
    );
    bmtr(&v5);
    for bytes in [&v3, &v5] {
        for cut in 4..bytes.len() {
            let (at, _) = fails_at(&bytes[..cut]);
            assert!(at <= cut as u64, "cut at {cut}: error at {at}");
        }
    }
}

#[test]
fn damaged_counts_flags_and_streams_fail_at_their_offsets() {
    let (good, frame_at) = v3();
    let phases_count = 37 + 13;
    let frame1_count = frame_at[1] - 4;
    let put = |at: usize, v: u32| {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    assert_eq!(fails_at(&put(33, 3)).0, 33, "bone counts differ");
    assert_eq!(fails_at(&put(phases_count, 4)).0, phases_count as u64);
    assert_eq!(fails_at(&put(frame1_count, 3)).0, frame1_count as u64);
    let (at, e) = fails_at(&put(4, 6));
    assert!(matches!(e, Error::Unsupported { .. }) && at == 4, "{e}");
    // A frame count no input could hold fails at the count, before anything is allocated.
    let mut huge = put(21, u32::MAX);
    huge[phases_count..phases_count + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(fails_at(&huge).0, phases_count as u64);
    let mut trailing = good.clone();
    trailing.push(0);
    assert_eq!(fails_at(&trailing).0, good.len() as u64);

    // Flagged: an unknown flag byte, a stream reaching before its start, a short stream.
    let flagged = |flag: u8, stream: &[u8]| {
        let mut b = header(5, 1, &BONES);
        b.extend(properties(&[]));
        array(&mut b, 1, Some(0), &f32s(&[0.0]));
        let at = array(&mut b, 2, Some(flag), stream);
        (b, at as u64)
    };
    let data = transforms(&[IDENTITY; 2]);
    let (b, at) = flagged(1, &data);
    let (off, e) = fails_at(&b);
    assert!(
        matches!(e, Error::Unsupported { .. }) && off == at - 1,
        "{e}"
    );
    // 3 literals, then a 2-byte match 5 back (instruction 0, distance 1 + 0 + 1 × 4): before
    // the start of the output.
    let (b, at) = flagged(2, &[20, 1, 2, 3, 0, 1, 0x11, 0, 0]);
    let (off, e) = fails_at(&b);
    assert!(off > at && off < b.len() as u64, "{e}");
    assert!(e.to_string().contains("LZO"), "{e}");
    // A valid stream of 14 bytes where the array declares 28.
    let (b, at) = flagged(2, &lzo_literals(&data[..14]));
    let (off, e) = fails_at(&b);
    assert!(off == at && e.to_string().contains("28"), "{e}");
}

#[test]
fn mutated_bmtrs_never_panic_and_what_reads_writes_back_exactly() {
    let (v3, _) = v3();
    let mut v5 = header(5, 2, &BONES);
    v5.extend(properties(&[("StepSound", 0.5, "left")]));
    array(&mut v5, 2, Some(2), &lzo_literals(&f32s(&[0.0, 1.0])));
    for _ in 0..2 {
        array(
            &mut v5,
            2,
            Some(2),
            &lzo_literals(&transforms(&[IDENTITY; 2])),
        );
    }
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut read = 0;
    for round in 0..4000 {
        let mut b = if round % 2 == 0 {
            v3.clone()
        } else {
            v5.clone()
        };
        for _ in 0..1 + next() % 3 {
            let i = 4 + (next() as usize) % (b.len() - 4);
            b[i] = next() as u8;
        }
        let Ok(r) = rtm::read(&b) else { continue };
        read += 1;
        assert_eq!(rtm::write(&r).unwrap(), b, "round {round}");
        rtm::validate(&r);
        let (m, _) = r.to_mlod(Some(&skeleton()));
        for phase in [0.0, 0.3, 1.0] {
            let _ = rtm::pose(&m, phase, PlayOptions { with_step: true });
        }
    }
    // Most single-byte changes land in values, not structure: they read.
    assert!(read > 1000, "only {read} mutated files read");
}

#[test]
fn an_edited_model_missing_transforms_plays_says_so_and_does_not_write() {
    let mut b = bmtr(&v3().0);
    b.frames[1].transforms.pop();
    b.phases.pop();
    let r = Rtm::Bmtr(b);
    let (m, notes) = r.to_mlod(None);
    let codes: Vec<&str> = notes.iter().map(|n| n.code).collect();
    assert!(
        codes.contains(&"bmtr-missing-transforms") && codes.contains(&"bmtr-phase-count"),
        "{codes:?}"
    );
    assert_eq!(m.frames.len(), 2);
    // The missing spine transform of frame 1 is no movement.
    assert_eq!(
        m.frames[1].transforms[1].matrix,
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    );
    let issues = rtm::validate(&r);
    for code in ["frame-bone-missing", "phase-count"] {
        assert!(
            issues
                .iter()
                .any(|i| i.code == code && i.severity == Severity::Error),
            "{code}: {issues:?}"
        );
    }
    assert!(matches!(rtm::write(&r), Err(Error::Unencodable { .. })));
}

/// A BMTR declares no size, so the scanner takes one only as a file of its own: a PBO entry
/// that is a BMTR is found whole, one inside another entry's bytes is not.
#[test]
fn a_bmtr_entry_of_a_pbo_is_found_whole() {
    use retroanim::scan::{self, ScanOptions};
    let (bytes, _) = v3();
    let mut buried = vec![0xA5u8; 64];
    buried.extend(&bytes);
    let entries: [(&str, &[u8]); 2] = [("anims\\wave.rtm", &bytes), ("data\\pack.bin", &buried)];
    let archive = scan::pbo::write(&[("prefix", "test")], &entries, Some([0; 20]));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("anims.pbo");
    std::fs::write(&path, &archive).unwrap();
    let report = scan::scan_paths(std::slice::from_ref(&path), &ScanOptions::default());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let rtms: Vec<_> = report
        .finds
        .iter()
        .filter(|f| f.format == Format::Rtm)
        .collect();
    assert_eq!(rtms.len(), 1, "{:?}", report.finds);
    let f = rtms[0];
    assert!(f.container.ends_with(":/anims/wave.rtm"), "{}", f.container);
    assert_eq!((f.offset, f.size), (0, bytes.len() as u64));
    assert_eq!(f.bytes().unwrap(), bytes);
    assert!(f.summary.get().contains("BMTR"), "{}", f.summary.get());
}
