//! MIMe differences found beside their base: scan lists loose `.vdf`/`.ndf` files, the assembly
//! pairs each with the TMD its blocks fit (and a VDF with its NDF), conversions and the report
//! use that pairing, and `render` draws the base as the console plays the differences. On
//! Sony's TMDVIEW MIME sample (MD0.TMD + MD0.VDF + MD0.NDF, and the variants MD1..MD4.TMD that
//! MIMEFILT made the keys from) and on hand-built files laid out from the format's table.

mod common;

use std::path::{Path, PathBuf};

use common::gltf_read::Gltf;
use retroanim::assemble::{self, Assembly};
use retroanim::convert::{self, Options};
use retroanim::formats::tmd::{self, Tmd};
use retroanim::render::{render_model, OutputKind, RenderOptions, View};
use retroanim::{Format, Limits, Model};

const DIR: &str = "3.6/PSX/SAMPLE/GRAPHICS/TMDVIEW/MIME/";

fn sample_dir() -> Option<PathBuf> {
    let p = common::corpus_file("VDF", &format!("{DIR}MD0.VDF"))?;
    Some(p.parent().unwrap().to_path_buf())
}

use common::diff_bytes;

fn link_tmd() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/link.tmd")).unwrap()
}

fn asset<'a>(a: &'a Assembly, name: &str) -> &'a assemble::Asset {
    a.assets
        .iter()
        .find(|x| x.source.container.ends_with(name))
        .unwrap_or_else(|| {
            let all: Vec<&str> = a
                .assets
                .iter()
                .map(|x| x.source.container.as_str())
                .collect();
            panic!("no asset {name} in {all:?}")
        })
}

fn read_tmd(p: &Path) -> Tmd {
    tmd::read(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn the_sample_vdf_and_ndf_pair_with_md0_and_with_each_other() {
    let Some(dir) = sample_dir() else { return };
    let a = assemble::from_paths(std::slice::from_ref(&dir));
    for (own, other) in [("MD0.VDF", "MD0.NDF"), ("MD0.NDF", "MD0.VDF")] {
        let x = asset(&a, own);
        let m = x.model.as_ref().expect("a base");
        assert!(m.source.container.ends_with("MD0.TMD"), "{own}: {m:?}");
        assert!(m.used && m.confidence >= assemble::USE_FROM, "{own}: {m:?}");
        // The variants fit as well (the same counts): shown, below the use line.
        let variants: Vec<&assemble::Candidate> = m
            .candidates
            .iter()
            .filter(|c| !c.source.container.ends_with("MD0.TMD"))
            .collect();
        assert_eq!(variants.len(), 4, "{own}: {m:?}");
        assert!(variants.iter().all(|c| c.confidence < assemble::USE_FROM));
        let p = x.partner.as_ref().expect("its partner");
        assert!(p.container.ends_with(other), "{own}: {p:?}");
    }
    assert!(a.notes.iter().all(|n| n.code != "no-base"), "{:?}", a.notes);
    // Converting the VDF as every road pairs it is the TMD exported with both files.
    let vdf = asset(&a, "MD0.VDF");
    let mut opts = Options::default();
    let notes = a.pair_asset(vdf, &mut opts).unwrap();
    assert!(notes.iter().any(|n| n.code == "paired-model"), "{notes:?}");
    assert!(
        notes.iter().any(|n| n.code == "paired-differences"),
        "{notes:?}"
    );
    let paired = convert::convert(&a.read(&vdf.source).unwrap(), Format::Gltf, &opts).unwrap();
    let read_diff = |name: &str, f: Format| {
        retroanim::formats::mime::read_with(
            &std::fs::read(dir.join(name)).unwrap(),
            f,
            &Limits::default(),
        )
        .unwrap()
    };
    let mut direct = Options::default();
    direct.mime.vdf = Some(read_diff("MD0.VDF", Format::Vdf));
    direct.mime.ndf = Some(read_diff("MD0.NDF", Format::Ndf));
    let by_hand = convert::convert(
        &Model::Tmd(read_tmd(&dir.join("MD0.TMD"))),
        Format::Gltf,
        &direct,
    )
    .unwrap();
    assert_eq!(paired.bytes, by_hand.bytes, "the paired VDF's glTF");
    let g = Gltf::parse(&paired.bytes);
    let targets = g.json["meshes"][0]["primitives"][0]["targets"]
        .as_array()
        .unwrap();
    assert_eq!(targets.len(), 4);
    assert!(targets.iter().all(|t| t.get("NORMAL").is_some()));
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("md0_vdf.gltf");
    std::fs::write(&path, &paired.bytes).unwrap();
    common::assert_khronos_clean(&path);
}

#[test]
fn hand_built_differences_pair_by_fit_then_place_and_name() {
    let t = tempfile::tempdir().unwrap();
    let (one, two) = (t.path().join("ONE"), t.path().join("TWO"));
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(&two).unwrap();
    // link.tmd: one object, 8 vertices, 6 normals.
    std::fs::write(one.join("BODY.TMD"), link_tmd()).unwrap();
    let d = [[0, -20, 0], [0, -20, 0]];
    std::fs::write(one.join("FACE.VDF"), diff_bytes(&[(0, 6, &d)])).unwrap();
    // Vertices 7 and 8 of an object of 8: it fits no TMD.
    std::fs::write(one.join("BIG.VDF"), diff_bytes(&[(0, 7, &d)])).unwrap();
    // Normals 5..7 of an object with 6 normals.
    std::fs::write(one.join("FACE.NDF"), diff_bytes(&[(0, 5, &d)])).unwrap();
    // A TIM so named is a TIM; bytes too short for a VDF are no find of their own.
    let tim = [0x10u32, 2, 12 + 4, 0, 0x0001_0002, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect::<Vec<u8>>();
    std::fs::write(one.join("PIC.VDF"), &tim).unwrap();
    std::fs::write(one.join("CUT.VDF"), [1u8, 0, 0]).unwrap();
    // Two fitting TMDs of other names: neither is sure.
    std::fs::write(two.join("P.TMD"), link_tmd()).unwrap();
    std::fs::write(two.join("Q.TMD"), link_tmd()).unwrap();
    std::fs::write(two.join("X.VDF"), diff_bytes(&[(0, 0, &d)])).unwrap();
    let report = retroanim::scan::scan_paths(
        &[t.path().to_path_buf()],
        &retroanim::scan::ScanOptions::default(),
    );
    let formats: Vec<(String, Format)> = report
        .finds
        .iter()
        .map(|f| {
            let name = Path::new(&f.container).file_name().unwrap();
            (name.to_string_lossy().into_owned(), f.format)
        })
        .collect();
    for want in [
        ("FACE.VDF", Format::Vdf),
        ("BIG.VDF", Format::Vdf),
        ("FACE.NDF", Format::Ndf),
        ("PIC.VDF", Format::Tim),
        ("X.VDF", Format::Vdf),
    ] {
        assert!(
            formats.contains(&(want.0.into(), want.1)),
            "{want:?} in {formats:?}"
        );
    }
    assert!(formats.iter().all(|(n, _)| n != "CUT.VDF"), "{formats:?}");
    let a = assemble::from_finds(&report.finds);
    let face = asset(&a, "FACE.VDF").model.as_ref().expect("BODY fits");
    assert!(face.used && face.source.container.ends_with("ONE/BODY.TMD"));
    assert!(asset(&a, "BIG.VDF").model.is_none());
    assert!(asset(&a, "FACE.NDF").model.is_none());
    // Not the NDF's partner: it has no base.
    assert!(asset(&a, "FACE.VDF").partner.is_none());
    // P and Q tie ahead of ONE/BODY.TMD (a sibling folder).
    let x = asset(&a, "X.VDF").model.as_ref().expect("candidates");
    assert!(!x.used && x.candidates.len() == 3, "{x:?}");
    assert!(x.candidates[..2]
        .iter()
        .all(|c| c.source.container.contains("TWO/")));
    let codes: Vec<&str> = a.notes.iter().map(|n| n.code).collect();
    assert!(
        codes.contains(&"no-base") && codes.contains(&"base-unsure"),
        "{codes:?}"
    );
    // Without a base to convert on, every road says why.
    let big = asset(&a, "BIG.VDF");
    let why = a.missing_model(big, &Options::default()).unwrap();
    assert!(why.contains("no TMD has every object and vertex"), "{why}");
    assert_eq!(
        assemble::without_model(Format::Vdf),
        "MIMe differences without their base model"
    );
    // The report: a card for each, the paired one drawn and exported, the others saying why.
    let out = t.path().join("report");
    let w = retroanim::gallery::write_report(
        &report,
        &[t.path().to_path_buf()],
        &out,
        &Default::default(),
    )
    .unwrap();
    let card = |name: &str| {
        w.index
            .assets
            .iter()
            .find(|c| c.source.container.ends_with(name))
            .unwrap()
    };
    let face = card("FACE.VDF");
    assert!(face.preview.is_some() && face.glb.is_some(), "{face:?}");
    assert!(face
        .model
        .as_ref()
        .unwrap()
        .source
        .container
        .ends_with("BODY.TMD"));
    let glb = std::fs::read(out.join(face.glb.as_ref().unwrap())).unwrap();
    assert!(
        contains(&glb, b"\"targets\""),
        "FACE.VDF's GLB has no morph target"
    );
    for name in ["BIG.VDF", "X.VDF"] {
        let c = card(name);
        assert!(c.glb.is_none(), "{name}: {c:?}");
        let why = c.no_preview.as_deref().unwrap_or_default();
        assert!(
            why.contains("MIMe differences without their base model"),
            "{name}: {why}"
        );
    }
    assert_eq!(card("X.VDF").alternatives.len(), 3);
    assert!(
        w.index
            .notes
            .iter()
            .any(|n| n.contains("MIMe differences without their base model")),
        "{:?}",
        w.index.notes
    );
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn render_opts() -> RenderOptions {
    RenderOptions {
        view: View {
            width: 96,
            height: 96,
            yaw: Some(45.0),
            ..View::default()
        },
        output: OutputKind::Png,
        ..RenderOptions::default()
    }
}

fn diffs(
    dir: &Path,
) -> (
    retroanim::formats::mime::Diff,
    retroanim::formats::mime::Diff,
) {
    let read = |name: &str, f| {
        retroanim::formats::mime::read_with(
            &std::fs::read(dir.join(name)).unwrap(),
            f,
            &Limits::default(),
        )
        .unwrap()
    };
    (read("MD0.VDF", Format::Vdf), read("MD0.NDF", Format::Ndf))
}

#[test]
fn render_draws_the_base_at_each_key_as_the_variant_it_was_made_from() {
    let Some(dir) = sample_dir() else { return };
    let base = read_tmd(&dir.join("MD0.TMD"));
    let (vdf, ndf) = diffs(&dir);
    let mut keys_opts = render_opts();
    keys_opts.tmd = Some(base.clone());
    keys_opts.mime_partner = Some(ndf.clone());
    let all = render_model(&Model::Vdf(vdf.clone()), &keys_opts).unwrap();
    assert_eq!(all.frames, 4, "one picture per key");
    for k in 0..4 {
        // MD0's packets with the vertices and normals of MD(k+1).TMD, Sony's variant.
        let variant = read_tmd(&dir.join(format!("MD{}.TMD", k + 1)));
        let mut want = base.clone();
        want.objects[0].vertices = variant.objects[0].vertices.clone();
        want.objects[0].normals = variant.objects[0].normals.clone();
        let want = render_model(&Model::Tmd(want), &render_opts()).unwrap();
        let mut w = vec![0; 4];
        w[k] = 4096;
        let mut o = keys_opts.clone();
        o.weights = Some(w);
        let got = render_model(&Model::Vdf(vdf.clone()), &o).unwrap();
        assert_eq!(got.frames, 1);
        assert!(
            got.bytes == want.bytes,
            "key {k} at 4096 is not MD{}",
            k + 1
        );
        // Picture k of the keys drawing alone is the same picture (framed by that key).
        let mut one = keys_opts.clone();
        one.frames = Some((k as u32, k as u32 + 1));
        let alone = render_model(&Model::Vdf(vdf.clone()), &one).unwrap();
        assert!(
            alone.bytes == want.bytes,
            "frames {k}..{} of the keys",
            k + 1
        );
        // The NDF drawn with its VDF is the same picture.
        let mut n = o.clone();
        n.mime_partner = Some(vdf.clone());
        let from_ndf = render_model(&Model::Ndf(ndf.clone()), &n).unwrap();
        assert!(from_ndf.bytes == want.bytes, "NDF + VDF, key {k}");
    }
    // The VDF alone moves the vertices but keeps MD0's normals: another picture.
    let mut alone = keys_opts.clone();
    alone.mime_partner = None;
    alone.weights = Some(vec![0, 0, 4096, 0]);
    let moved = render_model(&Model::Vdf(vdf.clone()), &alone).unwrap();
    let rest = render_model(&Model::Tmd(base.clone()), &render_opts()).unwrap();
    assert!(moved.bytes != rest.bytes, "key 2 moves the model");
}

#[test]
fn render_refuses_what_does_not_fit() {
    let base = tmd::read(&link_tmd()).unwrap();
    let d = [[0i16, -20, 0]];
    let read =
        |b: &[u8]| retroanim::formats::mime::read_with(b, Format::Vdf, &Limits::default()).unwrap();
    let fits = read(&diff_bytes(&[(0, 7, &d), (0, 0, &d)]));
    let opt = |e: retroanim::Error| match e {
        retroanim::Error::Option { option, what } => format!("{option}: {what}"),
        other => panic!("{other:?}"),
    };
    // No base.
    let e = render_model(&Model::Vdf(fits.clone()), &render_opts()).unwrap_err();
    assert!(opt(e).starts_with("tmd:"));
    let mut o = render_opts();
    o.tmd = Some(base.clone());
    // Weights for another number of keys.
    o.weights = Some(vec![4096]);
    let e = render_model(&Model::Vdf(fits.clone()), &o).unwrap_err();
    assert!(opt(e).contains("1 weights, but the vdf has 2 keys"));
    // Keys past the file's.
    o.weights = None;
    o.frames = Some((2, 3));
    let e = render_model(&Model::Vdf(fits.clone()), &o).unwrap_err();
    assert!(opt(e).contains("keys are 0..2"));
    // Weights on a model that has no keys.
    let mut t = render_opts();
    t.weights = Some(vec![4096]);
    let e = render_model(&Model::Tmd(base.clone()), &t).unwrap_err();
    assert!(opt(e).starts_with("weights:"));
    // A block past the base's vertices: the VDF's byte offset of that block's offset field.
    let far = read(&diff_bytes(&[(0, 0, &d), (0, 8, &d)]));
    let mut o = render_opts();
    o.tmd = Some(base);
    match render_model(&Model::Vdf(far), &o) {
        Err(retroanim::Error::Malformed {
            format: Format::Vdf,
            offset: 28,
            what,
        }) => assert!(what.contains("vertices 8 .. 9"), "{what}"),
        other => panic!("{other:?}"),
    }
}
