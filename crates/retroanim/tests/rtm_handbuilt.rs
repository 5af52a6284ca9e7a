//! RTM files built by hand from the layout table (not by our writer): every field reads as
//! laid out and writes back byte for byte; damaged files fail naming the offset; validation,
//! and playback are checked on files made to show each case (BMTR: `tests/rtm_bmtr.rs`).

use retroanim::formats::rtm::{self, PlayOptions, Rtm};
use retroanim::{Error, Format, Severity};

fn name32(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.resize(32, 0);
    v
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A rotation of `deg` degrees about Y as the file's 12 numbers (columns aside, up, dir; then
/// the position).
fn about_y(deg: f32, pos: [f32; 3]) -> [f32; 12] {
    let (s, c) = deg.to_radians().sin_cos();
    [c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c, pos[0], pos[1], pos[2]]
}

/// MDAT (one property) + RTM_0101 with 2 bones and 2 frames.
fn built(frames: &[(f32, [[f32; 12]; 2])]) -> Vec<u8> {
    let mut b = b"RTM_MDAT".to_vec();
    b.extend(0u32.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    b.extend(0.5f32.to_le_bytes());
    b.push(5);
    b.extend(b"sound");
    b.push(3);
    b.extend(b"hit");
    b.extend(b"RTM_0101");
    b.extend(f32s(&[0.0, 0.0, 2.0]));
    b.extend((frames.len() as i32).to_le_bytes());
    b.extend(2i32.to_le_bytes());
    b.extend(name32("Pelvis"));
    b.extend(name32("Spine"));
    for (phase, m) in frames {
        b.extend(phase.to_le_bytes());
        b.extend(name32("Pelvis"));
        b.extend(f32s(&m[0]));
        b.extend(name32("Spine"));
        b.extend(f32s(&m[1]));
    }
    b
}

fn two_frames() -> Vec<u8> {
    built(&[
        (
            0.0,
            [
                about_y(0.0, [0.0, 1.0, 0.0]),
                about_y(10.0, [0.0, 0.0, 0.0]),
            ],
        ),
        (
            1.0,
            [
                about_y(90.0, [1.0, 1.0, 0.0]),
                about_y(30.0, [0.0, 0.0, 0.0]),
            ],
        ),
    ])
}

const MDAT: u64 = 16 + 4 + 1 + 5 + 1 + 3;

#[test]
fn every_field_reads_as_laid_out_and_writes_back() {
    let bytes = two_frames();
    let Rtm::Mlod(m) = rtm::read(&bytes).unwrap() else {
        panic!("editable")
    };
    let d = m.mdat.as_ref().unwrap();
    assert_eq!(d.properties.len(), 1);
    assert_eq!(
        (
            d.properties[0].phase,
            d.properties[0].name.as_str(),
            d.properties[0].value.as_str()
        ),
        (0.5, "sound", "hit")
    );
    assert_eq!(m.displacement, [0.0, 0.0, 2.0]);
    assert_eq!(
        m.bones.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
        ["Pelvis", "Spine"]
    );
    assert_eq!(m.frames[1].phase, 1.0);
    assert_eq!(
        m.frames[1].transforms[0].matrix,
        about_y(90.0, [1.0, 1.0, 0.0])
    );
    assert_eq!(m.bone_offset(1), MDAT + 28 + 32);
    assert_eq!(m.frame_offset(1), MDAT + 28 + 64 + 4 + 160);
    assert_eq!(rtm::write(&Rtm::Mlod(m.clone())).unwrap(), bytes);
    let model = retroanim::read_any(&bytes).unwrap();
    assert_eq!(model.summary()["form"], "RTM_MDAT + RTM_0101");
    assert!(
        model
            .validate()
            .iter()
            .all(|i| i.severity < Severity::Warning),
        "{:?}",
        model.validate()
    );
}

#[test]
fn padding_bytes_after_a_name_are_kept() {
    let mut bytes = two_frames();
    let at = (MDAT + 28 + 10) as usize; // inside "Pelvis"'s padding
    bytes[at] = 0xAB;
    let r = rtm::read(&bytes).unwrap();
    let Rtm::Mlod(m) = &r else { panic!() };
    assert_eq!(m.bones[0].name, "Pelvis");
    assert_eq!(m.bones[0].tail.len(), 25);
    assert_eq!(rtm::write(&r).unwrap(), bytes);
    assert!(rtm::validate(&r)
        .iter()
        .any(|i| i.code == "bone-name-padding"));
}

#[test]
fn every_truncation_fails_with_an_offset_inside_the_file() {
    let bytes = two_frames();
    for n in 0..bytes.len() {
        match rtm::read(&bytes[..n]) {
            Err(e) => {
                let at = e
                    .offset()
                    .unwrap_or_else(|| panic!("{n}: {e} has no offset"));
                assert!(at <= n as u64, "{n}: {e}");
            }
            Ok(_) => panic!("{n} bytes of {} read", bytes.len()),
        }
    }
}

fn malformed_at(bytes: &[u8]) -> (u64, String) {
    match rtm::read(bytes) {
        Err(Error::Malformed {
            format: Format::Rtm,
            offset,
            what,
        }) => (offset, what),
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn damaged_headers_name_their_field() {
    let good = two_frames();
    let counts = MDAT as usize + 20;
    let mut b = good.clone();
    b[counts..counts + 4].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(malformed_at(&b).0, MDAT + 20);
    let mut b = good.clone();
    b[counts + 4..counts + 8].copy_from_slice(&(-3i32).to_le_bytes());
    assert_eq!(malformed_at(&b).0, MDAT + 24);
    let mut b = good.clone();
    b[counts..counts + 4].copy_from_slice(&1_000_000i32.to_le_bytes());
    let (at, what) = malformed_at(&b);
    assert_eq!(at, MDAT + 20, "{what}");
    let mut b = good.clone();
    b[MDAT as usize..MDAT as usize + 8].copy_from_slice(b"RTM_0102");
    let (at, what) = malformed_at(&b);
    assert_eq!(at, MDAT);
    assert!(what.contains("RTM_0101"), "{what}");
    let mut b = good.clone();
    b.extend([0; 3]);
    let (at, what) = malformed_at(&b);
    assert_eq!(at, good.len() as u64, "{what}");
    assert!(what.contains("3 bytes after"), "{what}");
    // The MDAT property count claims more than the file holds.
    let mut b = good.clone();
    b[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(malformed_at(&b).0, 12);
}

#[test]
fn validation_reports_each_broken_rule() {
    let nan = [f32::NAN; 12];
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            built(&[
                (0.5, [about_y(0.0, [0.0; 3]); 2]),
                (0.25, [about_y(0.0, [0.0; 3]); 2]),
            ]),
            "phase-order",
        ),
        (built(&[(1.5, [about_y(0.0, [0.0; 3]); 2])]), "phase-range"),
        (
            built(&[(0.0, [nan, about_y(0.0, [0.0; 3])])]),
            "matrix-not-finite",
        ),
        (
            built(&[(
                0.0,
                [
                    [2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
                    about_y(0.0, [0.0; 3]),
                ],
            )]),
            "matrix-not-rotation",
        ),
        (built(&[]), "no-frames"),
    ];
    for (bytes, code) in cases {
        let r = rtm::read(&bytes).unwrap();
        let issues = rtm::validate(&r);
        assert!(issues.iter().any(|i| i.code == code), "{code}: {issues:?}");
        assert_eq!(rtm::write(&r).unwrap(), bytes, "{code}: still writes back");
    }
    // Renamed bones: a duplicate header name and a frame missing a bone.
    let mut b = two_frames();
    let second = (MDAT + 28 + 32) as usize;
    b[second..second + 32].copy_from_slice(&name32("PELVIS"));
    let issues = rtm::validate(&rtm::read(&b).unwrap());
    assert!(
        issues.iter().any(|i| i.code == "bone-name-duplicate"),
        "{issues:?}"
    );
    let mut b = two_frames();
    let in_frame = (MDAT + 28 + 64 + 4 + 80) as usize;
    b[in_frame..in_frame + 32].copy_from_slice(&name32("Tail"));
    let issues = rtm::validate(&rtm::read(&b).unwrap());
    let missing = issues
        .iter()
        .find(|i| i.code == "frame-bone-missing")
        .unwrap();
    assert_eq!(missing.offset, MDAT + 28 + 64);
    // A 32-byte name has no NUL.
    let mut b = two_frames();
    b[second..second + 32].copy_from_slice(&[b'x'; 32]);
    let r = rtm::read(&b).unwrap();
    assert!(rtm::validate(&r)
        .iter()
        .any(|i| i.code == "bone-name-unterminated"));
    assert_eq!(rtm::write(&r).unwrap(), b);
}

#[test]
fn playback_slerps_rotations_and_adds_the_step_on_request() {
    let Rtm::Mlod(m) = rtm::read(&two_frames()).unwrap() else {
        panic!()
    };
    let mid = rtm::pose(&m, 0.5, PlayOptions::default()).unwrap();
    // Halfway between 0° and 90° about Y is 45°, a rotation (an element-wise blend would
    // shrink the columns to 0.707).
    let want = about_y(45.0, [0.5, 1.0, 0.0]);
    for k in 0..12 {
        assert!(
            (mid[0][k] - want[k]).abs() < 1e-6,
            "{k}: {} vs {}",
            mid[0][k],
            want[k]
        );
    }
    let stepped = rtm::pose(&m, 0.5, PlayOptions { with_step: true }).unwrap();
    assert!(
        (stepped[0][11] - (want[11] + 1.0)).abs() < 1e-6,
        "half the 2 m step in z"
    );
    // Outside the frames the ends hold.
    assert_eq!(
        rtm::pose(&m, 2.0, PlayOptions::default()).unwrap()[1],
        about_y(30.0, [0.0; 3])
    );
}

#[test]
fn gltf_export_carries_mdat_displacement_and_duration_back() {
    let model = retroanim::read_any(&two_frames()).unwrap();
    let glb = retroanim::convert::convert(&model, Format::Glb, &Default::default()).unwrap();
    let back =
        retroanim::convert::convert_bytes(&glb.bytes, None, Format::Rtm, &Default::default())
            .unwrap();
    // The MDAT block, the displacement and the bones come back from the export's extras.
    assert_eq!(back.bytes.len(), two_frames().len());
    let Rtm::Mlod(m) = rtm::read(&back.bytes).unwrap() else {
        panic!()
    };
    assert_eq!(m.mdat.as_ref().unwrap().properties[0].value, "hit");
    assert_eq!(m.displacement, [0.0, 0.0, 2.0]);
    // --duration stretches time: the same keys at phase × 2 s come back at the same phases.
    let opts = retroanim::convert::Options {
        timing: retroanim::convert::Timing {
            duration: Some(2.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let glb2 = retroanim::convert::convert(&model, Format::Glb, &opts).unwrap();
    let back2 =
        retroanim::convert::convert_bytes(&glb2.bytes, None, Format::Rtm, &Default::default())
            .unwrap();
    let Rtm::Mlod(m2) = rtm::read(&back2.bytes).unwrap() else {
        panic!()
    };
    assert_eq!(
        m2.frames.iter().map(|f| f.phase).collect::<Vec<_>>(),
        [0.0, 1.0]
    );
}

#[test]
fn scan_finds_an_rtm_inside_other_bytes_to_its_declared_size() {
    let rtm = two_frames();
    let opts = retroanim::scan::ScanOptions::default();
    let mut blob = vec![0x55u8; 64];
    blob.extend(&rtm);
    blob.extend([0x77u8; 100]);
    let finds = retroanim::scan::scan_bytes(&blob, &opts);
    let f = finds
        .iter()
        .find(|f| f.format == Format::Rtm)
        .expect("found");
    assert_eq!((f.offset, f.size), (64, rtm.len() as u64));
    assert_eq!(rtm::declared_len(&blob[64..]), Some(rtm.len() as u64));
}

/// The older header, RTM_0100 (Operation Flashpoint): magic, the step along z as one f32,
/// then frame count, bone count, names and frames as RTM_0101.
fn built_0100(step: f32) -> Vec<u8> {
    let mut b = b"RTM_0100".to_vec();
    b.extend(step.to_le_bytes());
    b.extend(2i32.to_le_bytes());
    b.extend(1i32.to_le_bytes());
    b.extend(name32("Hand"));
    for (phase, deg) in [(0.0f32, 0.0f32), (1.0, 90.0)] {
        b.extend(phase.to_le_bytes());
        b.extend(name32("Hand"));
        b.extend(f32s(&about_y(deg, [0.0, 1.0, 0.0])));
    }
    b
}

#[test]
fn the_older_rtm_0100_header_reads_writes_plays_and_converts() {
    let bytes = built_0100(1.5);
    let Rtm::Mlod(m) = rtm::read(&bytes).unwrap() else {
        panic!("editable")
    };
    assert!(m.v0100);
    assert_eq!(
        m.displacement,
        [0.0, 0.0, 1.5],
        "the one f32 is the step along z"
    );
    assert_eq!(m.bones[0].name, "Hand");
    assert_eq!(m.frames.len(), 2);
    assert_eq!(
        m.frames[1].transforms[0].matrix,
        about_y(90.0, [0.0, 1.0, 0.0])
    );
    assert_eq!((m.bone_offset(0), m.frame_offset(1)), (20, 20 + 32 + 84));
    let model = Rtm::Mlod(m.clone());
    assert_eq!(rtm::write(&model).unwrap(), bytes, "byte for byte");
    assert_eq!(model.summary().form, "RTM_0100");
    assert!(rtm::looks_like(&bytes));
    assert_eq!(rtm::declared_len(&bytes), Some(bytes.len() as u64));
    let issues = rtm::validate(&model);
    assert!(
        issues.iter().all(|i| i.severity != Severity::Error),
        "{issues:?}"
    );
    // A step across the unit cannot be stored in the older header: refused, nothing written.
    let mut wide = m.clone();
    wide.displacement[0] = 0.5;
    let e = rtm::write(&Rtm::Mlod(wide)).unwrap_err();
    assert!(e.to_string().contains("RTM_0100"), "{e}");
    // Cut short: the error names an offset inside the file.
    let e = rtm::read(&bytes[..30]).unwrap_err();
    assert!(e.offset().is_some_and(|o| o <= 30), "{e}");
    // Through glTF and back: the same form, bones, phases and step.
    let any = retroanim::read_any(&bytes).unwrap();
    let glb = retroanim::convert::convert(&any, Format::Glb, &Default::default()).unwrap();
    let back =
        retroanim::convert::convert_bytes(&glb.bytes, None, Format::Rtm, &Default::default())
            .unwrap();
    assert_eq!(back.bytes.len(), bytes.len());
    assert_eq!(&back.bytes[..12], &bytes[..12], "magic and step");
    // Found inside other bytes, to its declared size.
    let mut blob = vec![0x55u8; 40];
    blob.extend(&bytes);
    blob.extend([0x77u8; 50]);
    let finds = retroanim::scan::scan_bytes(&blob, &Default::default());
    let f = finds
        .iter()
        .find(|f| f.format == Format::Rtm)
        .expect("found");
    assert_eq!((f.offset, f.size), (40, bytes.len() as u64));
}
