//! Nothing left out silently: each case where a conversion used to drop part of its input or
//! option without a word now gives a note with a count, an option error, or the whole output.

mod common;

use common::psx_fixtures::{clut_tim, triangle_tmd};
use retroanim::convert::{self, Options};
use retroanim::formats::{mdd, p3d, tim, tmd};
use retroanim::{Error, Format, Model};

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../samples")
            .join(name),
    )
    .unwrap()
}

fn codes(c: &convert::Conversion) -> Vec<&str> {
    c.notes.iter().map(|n| n.code).collect()
}

/// The glTF JSON of a GLB's JSON chunk.
fn glb_json(glb: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

#[test]
fn textured_tmd_without_its_tim_is_noted_and_its_material_says_so() {
    // A lit textured triangle (mode 0x24) on texture page 10.
    let bytes = tmd::write(&triangle_tmd(0, 0x24, 0x000A)).unwrap();
    let bare = convert::convert_bytes(&bytes, None, Format::Glb, &Options::default()).unwrap();
    let note = bare
        .notes
        .iter()
        .find(|n| n.code == "textures-missing")
        .expect("a textures-missing note");
    assert!(
        note.message
            .starts_with("1 textured polygons (texture page 10)"),
        "{}",
        note.message
    );
    assert!(note.message.contains("--tim"), "{}", note.message);
    let g = glb_json(&bare.bytes);
    assert_eq!(g["materials"][0]["name"], "texture missing", "{g}");

    // With the TIM that holds the texels: textured, and nothing to say.
    let opts = Options {
        textures: convert::Textures {
            tims: vec![clut_tim()],
            ..Default::default()
        },
        ..Options::default()
    };
    let done = convert::convert_bytes(&bytes, None, Format::Glb, &opts).unwrap();
    assert!(
        !codes(&done).contains(&"textures-missing"),
        "{:?}",
        done.notes
    );
    assert_eq!(
        glb_json(&done.bytes)["materials"][0]["name"],
        "tim 0 clut 0"
    );

    // An untextured polygon keeps the name "untextured" and gives no note.
    let plain = tmd::write(&triangle_tmd(0, 0x20, 0)).unwrap();
    let done = convert::convert_bytes(&plain, None, Format::Glb, &Options::default()).unwrap();
    assert!(done.notes.is_empty(), "{:?}", done.notes);
    assert_eq!(glb_json(&done.bytes)["materials"][0]["name"], "untextured");
}

#[test]
fn tim_for_a_tod_without_its_model_is_an_option_error() {
    let opts = Options {
        textures: convert::Textures {
            tims: vec![tim::read(&sample("checker.tim")).unwrap()],
            ..Default::default()
        },
        ..Options::default()
    };
    let err = convert::convert_bytes(&sample("swing.tod"), None, Format::Glb, &opts).unwrap_err();
    match &err {
        Error::Option { option, what } => {
            assert_eq!(*option, "tim");
            assert!(what.contains("--tmd"), "{what}");
        }
        e => panic!("expected an option error, got {e}"),
    }
    // With the model the same TIM is taken.
    let mut with = opts.clone();
    with.tod.tmd = Some(tmd::read(&sample("link.tmd")).unwrap());
    convert::convert_bytes(&sample("swing.tod"), None, Format::Glb, &with).unwrap();
}

#[test]
fn every_tim_of_a_file_of_several_becomes_a_png() {
    let one = sample("checker.tim");
    let alone = convert::convert_bytes(&one, None, Format::Png, &Options::default()).unwrap();
    assert!(alone.extra.is_empty() && alone.notes.is_empty());
    // Three TIMs back to back, then bytes that start none.
    let mut three = [&one[..], &one[..], &one[..]].concat();
    three.extend_from_slice(&[1, 2, 3, 4, 5]);
    let done = convert::convert_bytes(&three, None, Format::Png, &Options::default()).unwrap();
    assert_eq!(done.bytes, alone.bytes);
    let suffixes: Vec<&str> = done.extra.iter().map(|e| e.suffix.as_str()).collect();
    assert_eq!(suffixes, ["_1.png", "_2.png"]);
    for e in &done.extra {
        assert_eq!(e.format, Format::Png);
        assert_eq!(e.bytes, alone.bytes);
    }
    let several = done
        .notes
        .iter()
        .find(|n| n.code == "several-tims")
        .unwrap();
    assert!(
        several.message.contains("holds 3 TIMs"),
        "{}",
        several.message
    );
    let rest = done
        .notes
        .iter()
        .find(|n| n.code == "trailing-bytes")
        .unwrap();
    assert!(rest.message.contains("last 5 bytes"), "{}", rest.message);
    assert_eq!(
        std::path::PathBuf::from("out/name_2.png"),
        done.extra[1].path_beside(std::path::Path::new("out/name.png"))
    );
}

/// A 5-frame MDD at 24 fps with as many points as the sample P3D's animated LOD.
fn short_mdd(base: &p3d::P3d) -> Vec<u8> {
    let lod = base.default_lod();
    let points = base.frame_width(lod).unwrap();
    let frame = base.frames(lod)[0].positions.to_vec();
    let m = mdd::Mdd {
        points: points as u32,
        times: (0..5).map(|k| k as f32 / 24.0).collect(),
        rest_frame: None,
        frames: vec![frame; 5],
    };
    mdd::write(&m).unwrap()
}

#[test]
fn short_cache_into_p3d_notes_its_phase_range() {
    let Model::P3d(base) = retroanim::read_any(&sample("flag.p3d")).unwrap() else {
        panic!("flag.p3d is a P3D");
    };
    let data = short_mdd(&base);
    let mut opts = Options::default();
    opts.p3d.base = Some(base.clone());
    let done = convert::convert_bytes(&data, Some(Format::Mdd), Format::P3d, &opts).unwrap();
    let note = done
        .notes
        .iter()
        .find(|n| n.code == "phase-range")
        .expect("a phase-range note");
    assert!(
        note.message.contains("phases 0.000..0.167"),
        "{}",
        note.message
    );
    assert!(note.message.contains("--duration 0.16"), "{}", note.message);
    // The phases are what the note says.
    let Model::P3d(out) = retroanim::read_any(&done.bytes).unwrap() else {
        panic!("a P3D");
    };
    let last = out.frames(out.default_lod()).last().unwrap().time;
    assert!((last - 4.0 / 24.0).abs() < 1e-4, "{last}");

    // --duration (or --fps) spreads the frames over 0..1: no note.
    opts.timing.fps = Some(24.0);
    let done = convert::convert_bytes(&data, Some(Format::Mdd), Format::P3d, &opts).unwrap();
    assert!(!codes(&done).contains(&"phase-range"), "{:?}", done.notes);
    opts.timing.fps = None;
    opts.timing.duration = Some(0.5);
    let done = convert::convert_bytes(&data, Some(Format::Mdd), Format::P3d, &opts).unwrap();
    assert!(!codes(&done).contains(&"phase-range"), "{:?}", done.notes);
}

#[test]
fn a_mixed_mode_tim_converts_as_its_halfwords_with_a_note() {
    // PMODE 4 (mixed): no CLUT, two halfwords, shown as 15-bit direct colour.
    let mut t = clut_tim();
    t.pmode = 4;
    t.clut = None;
    t.image.data = vec![0x001F, 0x7C00];
    let bytes = tim::write(&t).unwrap();
    let done = convert::convert_bytes(&bytes, None, Format::Png, &Options::default()).unwrap();
    assert_eq!(codes(&done), ["mixed-mode"]);
    let img = tim::decode_png(&done.bytes, &retroanim::Limits::default()).unwrap();
    assert_eq!((img.width, img.height), (1, 2));
    // Red (0x001F: red is the low 5 bits) on top, blue below, as the halfwords say.
    assert_eq!(&img.pixels[..4], &[255, 0, 0, 255]);
    assert_eq!(&img.pixels[4..], &[0, 0, 255, 255]);
}
