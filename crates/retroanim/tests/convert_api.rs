//! The library conversion API (`retroanim::convert`): every pair the format table lists
//! converts, the output is what the target format reads back, and every option a pair does not
//! read is refused by name.

mod common;

use retroanim::convert::{self, OptionName, Options};
use retroanim::{Error, Format, Model};

/// One input per source format: the project's samples, and corpus files for HMD and ODOL.
fn sources() -> Vec<(String, Model)> {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let mut out: Vec<(String, Model)> = ["swing.tod", "link.tmd", "checker.tim", "flag.p3d"]
        .iter()
        .chain(&["wave.mdd", "wave.pc2"])
        .map(|n| {
            let data = std::fs::read(samples.join(n)).unwrap();
            (n.to_string(), retroanim::read_any(&data).unwrap())
        })
        .collect();
    // The first HMD, and the first ODOL with frames (a P3D converts to a cache only then).
    for kind in ["HMD", "p3d-odol"] {
        let found = common::corpus_files(kind)
            .into_iter()
            .find_map(|(name, path)| {
                let model = retroanim::read_any(&std::fs::read(path).unwrap()).unwrap();
                match &model {
                    Model::P3d(p) if p.frames(p.default_lod()).is_empty() => None,
                    _ => Some((name, model)),
                }
            });
        out.extend(found);
    }
    out
}

fn sample_p3d() -> retroanim::formats::p3d::P3d {
    let data = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/flag.p3d"),
    )
    .unwrap();
    match retroanim::read_any(&data).unwrap() {
        Model::P3d(p) => p,
        _ => panic!("flag.p3d is a P3D"),
    }
}

/// The options each pair needs to run at all (a cache into P3D needs its base model).
fn needed(from: Format, to: Format) -> Options {
    let mut o = Options::default();
    if to == Format::P3d && from != Format::P3d {
        o.p3d.base = Some(sample_p3d());
    }
    o
}

/// What the output of a conversion to `to` must be.
fn check_output(name: &str, to: Format, bytes: &[u8], source: &Model) {
    match to {
        Format::Glb => assert_eq!(&bytes[..4], b"glTF", "{name} → glb"),
        Format::Gltf => {
            let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            assert_eq!(v["asset"]["version"], "2.0", "{name} → gltf");
        }
        Format::Png => assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name} → png"),
        Format::Json => assert_eq!(&Model::from_json(bytes).unwrap(), source, "{name} → json"),
        Format::Lab => {
            use retroanim::lab;
            let text = std::str::from_utf8(bytes).unwrap();
            let loader = lab::MemLoader::default();
            let hmd = lab::assemble_str("x.lab", text, &loader, &lab::LabOptions::default())
                .unwrap_or_else(|e| panic!("{name} → lab does not assemble: {e}"));
            assert_eq!(hmd, source.write().unwrap(), "{name} → lab → hmd");
        }
        // An RSD names its PLY/MAT/GRP files (written beside it): the set is read by
        // `formats::rsd::read_set` (tests/rsd.rs reads TMD → RSD sets back whole).
        Format::Rsd => assert_eq!(retroanim::detect(bytes), Some(Format::Rsd), "{name} → rsd"),
        _ => {
            let back = retroanim::read_any(bytes).unwrap();
            assert_eq!(back.format(), to, "{name} → {to}");
        }
    }
}

#[test]
fn every_listed_pair_converts() {
    let mut pairs = 0;
    for (name, model) in sources() {
        let from = model.format();
        let targets = convert::targets(from);
        assert!(!targets.is_empty(), "{from} converts to something");
        for &to in targets {
            let out = convert::convert(&model, to, &needed(from, to))
                .unwrap_or_else(|e| panic!("{name} → {to}: {e}"));
            assert_eq!(out.format, to);
            check_output(&name, to, &out.bytes, &model);
            pairs += 1;
        }
        // A model converted to its own format is written again, identically for these files.
        let same = convert::convert(&model, from, &Options::default()).unwrap();
        assert_eq!(same.bytes, model.write().unwrap(), "{name} → {from}");
    }
    assert!(pairs >= 20, "only {pairs} pairs ran");
}

#[test]
fn an_impossible_conversion_lists_the_possible_targets() {
    let (_, tmd) = sources().swap_remove(1);
    let e = convert::convert(&tmd, Format::Png, &Options::default()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Conversion { .. }), "{e:?}");
    for t in ["gltf", "glb", "json"] {
        assert!(msg.contains(t), "{msg}");
    }
}

/// Sets one option to a valid value.
fn with(o: OptionName) -> Options {
    let mut opts = Options::default();
    match o {
        OptionName::Axes => opts.geometry.axes = Some(convert::Axes::Raw),
        OptionName::Scale => opts.geometry.scale = Some(0.01),
        OptionName::Fps => opts.timing.fps = Some(25.0),
        OptionName::Duration => opts.timing.duration = Some(2.0),
        OptionName::Smooth => opts.timing.smooth = true,
        OptionName::Tmd => {
            let data = std::fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/link.tmd"),
            )
            .unwrap();
            opts.tod.tmd = Some(retroanim::formats::tmd::read(&data).unwrap());
        }
        OptionName::After => {
            let data = std::fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/swing.tod"),
            )
            .unwrap();
            opts.tod.after = vec![retroanim::formats::tod::read(&data).unwrap()];
        }
        OptionName::Tim => {
            let data = std::fs::read(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/checker.tim"),
            )
            .unwrap();
            opts.textures.tims = vec![retroanim::formats::tim::read(&data).unwrap()];
        }
        OptionName::Clut => opts.textures.clut = Some(0),
        OptionName::SemiTransparent => opts.textures.semi_transparent = true,
        OptionName::Sequence => opts.hmd.sequence = Some(0),
        OptionName::StreamId => opts.hmd.stream_id = Some(0),
        OptionName::Lod => opts.p3d.lod = Some(1.0),
        OptionName::Base => opts.p3d.base = Some(sample_p3d()),
        OptionName::Bpp => opts.textures.bpp = Some(8),
        OptionName::Vram => opts.textures.vram = Some((640, 0)),
        OptionName::ClutAt => opts.textures.clut_at = Some((0, 480)),
        OptionName::P3d => opts.rtm.p3d = Some(sample_p3d()),
        OptionName::Start => opts.timing.start = Some(0.5),
        OptionName::Rest => opts.rtm.rest = Some(retroanim::formats::rtm::Rest::Bind),
        _ => unreachable!("every option is listed in ALL_OPTIONS"),
    }
    opts
}

const ALL_OPTIONS: [OptionName; 20] = [
    OptionName::Bpp,
    OptionName::Vram,
    OptionName::ClutAt,
    OptionName::Axes,
    OptionName::Scale,
    OptionName::Fps,
    OptionName::Duration,
    OptionName::Smooth,
    OptionName::Tmd,
    OptionName::After,
    OptionName::Tim,
    OptionName::Clut,
    OptionName::SemiTransparent,
    OptionName::Sequence,
    OptionName::StreamId,
    OptionName::Lod,
    OptionName::Base,
    OptionName::P3d,
    OptionName::Start,
    OptionName::Rest,
];

/// The options each conversion reads, as the README's format table and option help state them.
fn reads(from: Format, to: Format) -> &'static [OptionName] {
    use Format as F;
    use OptionName as O;
    let gltf = matches!(to, F::Gltf | F::Glb);
    match from {
        F::Tod if gltf => &[O::Axes, O::Scale, O::Tim, O::Smooth, O::Tmd, O::After],
        F::Tmd if gltf => &[O::Axes, O::Scale, O::Tim],
        F::Hmd if gltf => &[O::Axes, O::Scale, O::Tim, O::Fps, O::Sequence, O::StreamId],
        F::Tim if to == F::Png => &[O::Clut, O::SemiTransparent],
        F::P3d if to != F::Json && to != F::P3d => &[O::Axes, O::Fps, O::Duration, O::Lod],
        F::Mdd | F::Pc2 if to == F::P3d => &[O::Axes, O::Fps, O::Duration, O::Lod, O::Base],
        F::Mdd if to == F::Pc2 => &[O::Fps],
        F::Pc2 if to == F::Mdd || gltf => &[O::Fps],
        _ => &[],
    }
}

#[test]
fn options_a_conversion_does_not_read_are_refused_by_name() {
    let mut refused = 0;
    for (name, model) in sources() {
        let from = model.format();
        let targets: Vec<Format> = convert::targets(from)
            .iter()
            .copied()
            .chain([from])
            .collect();
        for to in targets {
            let allowed = reads(from, to);
            for o in ALL_OPTIONS {
                let mut opts = with(o);
                if o != OptionName::Base && to == Format::P3d && from != Format::P3d {
                    opts.p3d.base = Some(sample_p3d());
                }
                let r = convert::convert(&model, to, &opts);
                if allowed.contains(&o) {
                    if let Err(Error::Option { option, what }) = &r {
                        // A value that does not fit this file (e.g. no LOD 1) is fine; refusing
                        // the option as such is not.
                        assert!(
                            !what.contains("does not apply"),
                            "{name} → {to}: --{option} refused: {what}"
                        );
                    }
                } else {
                    match r {
                        Err(Error::Option { option, what }) => {
                            assert_eq!(option, o.name(), "{name} → {to}");
                            assert!(what.contains("does not apply"), "{what}");
                            refused += 1;
                        }
                        other => panic!(
                            "{name} → {to} with --{} gave {:?}, not a refusal",
                            o.name(),
                            other.map(|c| c.format)
                        ),
                    }
                }
            }
        }
    }
    assert!(refused > 100, "only {refused} refusals checked");
}

#[test]
fn the_ignored_options_of_the_fidelity_issue_are_refused() {
    let all = sources();
    let find = |f: Format| all.iter().find(|(_, m)| m.format() == f).map(|(_, m)| m);
    let cases = [
        (Format::Tod, Format::Glb, OptionName::Lod),
        (Format::Tod, Format::Glb, OptionName::Fps),
        (Format::P3d, Format::Mdd, OptionName::Scale),
        (Format::Hmd, Format::Glb, OptionName::Smooth),
    ];
    for (from, to, o) in cases {
        let Some(model) = find(from) else { continue };
        let e = convert::convert(model, to, &with(o)).unwrap_err();
        assert_eq!(
            e.to_string().split(':').next(),
            Some(&*format!("--{}", o.name()))
        );
    }
}

#[test]
fn values_out_of_range_are_refused() {
    let all = sources();
    let tim = &all[2].1;
    let mut o = Options::default();
    o.textures.clut = Some(7);
    let e = convert::convert(tim, Format::Png, &o).unwrap_err();
    assert!(
        matches!(&e, Error::Option { option: "clut", what } if what.contains("CLUT")),
        "{e}"
    );
    let tod = &all[0].1;
    let mut o = Options::default();
    o.geometry.scale = Some(-1.0);
    let e = convert::convert(tod, Format::Glb, &o).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Option {
                option: "scale",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn convert_bytes_forces_the_format() {
    // An MDD cut short: detection cannot place it, but read as an MDD it names its offset.
    let data = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/wave.mdd"),
    )
    .unwrap();
    let cut = &data[..data.len() / 2];
    let e = convert::convert_bytes(cut, Some(Format::Mdd), Format::Pc2, &Options::default())
        .unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    assert!(e.to_string().starts_with("mdd:"), "{e}");
}

/// Two animations of one model written as split glTF files (`Parts::files`, what the report
/// and `scan --extract --convert gltf` write through): the second's `.gltf` points at the first
/// one's model part, and each at its own data, by URIs relative to its own folder.
#[test]
fn split_gltf_files_share_one_model_part() {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let read = |n: &str| retroanim::read_any(&std::fs::read(samples.join(n)).unwrap()).unwrap();
    let (Model::Tod(anim), Model::Tmd(tmd)) = (read("swing.tod"), read("link.tmd")) else {
        panic!("samples")
    };
    let mut opts = Options::default();
    opts.tod.tmd = Some(tmd);
    let (parts, _) = convert::tod_gltf_parts(&anim, &opts).unwrap();
    assert!(!parts.shared.is_empty() && !parts.own.is_empty());
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut put = |path: String, bytes: &[u8]| -> retroanim::Result<String> {
        if let Some((p, _)) = files.iter().find(|(_, b)| b == bytes) {
            return Ok(p.clone());
        }
        files.push((path.clone(), bytes.to_vec()));
        Ok(path)
    };
    let (_, first) = parts.files("a/swing", &mut put).unwrap();
    assert_eq!(first, ["a/swing.model.bin", "a/swing.bin"]);
    // The same animation again, under another folder: its data is the same bytes too.
    let (json, second) = parts.files("b/c/again", &mut put).unwrap();
    assert_eq!(second, first, "both files written once");
    let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let uris: Vec<&str> = json["buffers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["../../a/swing.model.bin", "../../a/swing.bin"]);
    assert_eq!(files.len(), 2);
}
