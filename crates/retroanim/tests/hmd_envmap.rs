//! Environment-map HMDs (category 6, `SCEI/ENVMAP/`) and the INI driver bit on ordinary
//! polygons: what the glTF shows of them.
//!
//! Sony's LAB sources beside the samples make the layout certain: `STAR09.LAB` points one
//! `CTG_POLY|DRV(INI)` Gouraud triangle primitive (0x0080000c) and four `CTG_ENV` ones at the
//! same packet list, so an environment-map triangle is category 0's Gouraud triangle; the
//! mapping itself (a texture looked up from the normals) is left out with a note.

mod common;

use common::gltf_read::Gltf;
use common::hmd_asm::{assemble, cs, h, It::*};
use retroanim::formats::hmd::{self, *};
use retroanim::Format;

/// A one-triangle HMD: one coordinate, block 1 drawing a primitive of type `type_code`
/// (category 0 with a 3-word header, or category 6 with the 14-word header of the ENVMAP
/// samples) over one lit Gouraud triangle `[r g b 0x30] [n v] [n v] [n v]`.
fn triangle(type_code: u32) -> Vec<u8> {
    let mut v = vec![
        W(0x50),
        W(0),
        Ptr("phs"),
        W(3),
        W(0),
        Ptr("prim"),
        W(0),
        Label("coords"),
        W(1),
        // flg, identity matrix (9 halfwords + pad, t), workm, rot, super.
        W(0),
        W(h(4096, 0)),
        W(0),
        W(h(4096, 0)),
        W(0),
        W(h(4096, 0)),
        W(0),
        W(0),
        W(0),
    ];
    v.extend((0..11).map(|_| W(0)));
    v.extend([Label("phs"), W(1), Label("hdr")]);
    if type_code >> 24 == 6 {
        v.extend([W(14), M("poly"), M("vert"), M("norm")]);
        // Image entry pointers (none), then texture mode, material, rates, screen colour.
        v.extend([W(0), W(0), W(0), W(0), W(0)]);
        v.extend([
            W(0x0004_0002),
            W(0),
            W(0),
            W(0),
            W(0x7880_5000),
            M("coords"),
        ]);
    } else {
        v.extend([W(3), M("poly"), M("vert"), M("norm")]);
    }
    v.extend([
        Label("prim"),
        W(0xFFFF_FFFF),
        Ptr("hdr"),
        W(0x8000_0001),
        W(type_code),
        cs(2, 1),
        W(0),
        Label("poly"),
        W(0x3000_40FF),
        W(h(0, 0)),
        W(h(0, 1)),
        W(h(0, 2)),
        Label("vert"),
        W(h(10, 20)),
        W(h(30, 0)),
        W(h(100, 20)),
        W(h(30, 0)),
        W(h(10, 200)),
        W(h(30, 0)),
        Label("norm"),
        W(h(0, 0)),
        W(h((-4096i16) as u16, 0)),
    ]);
    assemble(&v)
}

/// The scene in the console's axes and units, with its notes.
fn raw_scene(m: &Hmd) -> (retroanim::scene::Scene, Vec<(&'static str, String)>) {
    m.to_scene_noted(&SceneOptions {
        axes: Axes::Raw,
        scale: 1.0,
        ..SceneOptions::default()
    })
    .unwrap()
}

/// The glTF of `scene`: every mesh primitive's POSITION values.
fn gltf_positions(scene: &retroanim::scene::Scene) -> Vec<Vec<[f64; 3]>> {
    let g = Gltf::parse(&retroanim::export::gltf::write(scene, Format::Gltf).unwrap());
    let mut out = Vec::new();
    for mesh in g.json["meshes"].as_array().unwrap() {
        for p in mesh["primitives"].as_array().unwrap() {
            assert!(p["indices"].is_null(), "corners are not indexed");
            let a = p["attributes"]["POSITION"].as_u64().unwrap() as usize;
            out.push(
                g.accessor(a)
                    .into_iter()
                    .map(|v| [v[0], v[1], v[2]])
                    .collect(),
            );
        }
    }
    out
}

#[test]
fn a_triangle_with_the_init_bit_or_an_envmap_type_round_trips_and_exports() {
    // (type, what it is); the plain type exports the same triangle.
    let cases = [
        (0x0000_000c, "plain Gouraud triangle"),
        (0x0080_000c, "INI Gouraud triangle"),
        (0x0600_100c, "GsUE1G3"),
        (0x0680_100c, "GsUE1G3 with INI"),
        (0x0600_500c, "GsUE2OLG3"),
    ];
    // Corners 0 2 1 (the console's clockwise fronts turned counter-clockwise).
    let want = vec![vec![
        [10.0, 20.0, 30.0],
        [10.0, 200.0, 30.0],
        [100.0, 20.0, 30.0],
    ]];
    for (code, what) in cases {
        let bytes = triangle(code);
        let m = hmd::read(&bytes).unwrap();
        assert_eq!(
            hmd::write(&m).unwrap(),
            bytes,
            "{what}: byte-exact round trip"
        );
        let (scene, notes) = raw_scene(&m);
        assert_eq!(gltf_positions(&scene), want, "{what}");
        let codes: Vec<&str> = notes.iter().map(|n| n.0).collect();
        assert!(
            !codes.contains(&"polygons-not-exported"),
            "{what}: {notes:?}"
        );
        assert_eq!(
            codes.contains(&"envmap-left-out"),
            code >> 24 == 6,
            "{what}: the mapping left out is said ({notes:?})"
        );
        if code >> 24 == 6 {
            let note = &notes.iter().find(|n| n.0 == "envmap-left-out").unwrap().1;
            assert!(note.starts_with("1 environment-map primitive"), "{note}");
            assert!(note.contains(&format!("0x{code:08x}")), "{note}");
        }
    }
    // An environment-map type LIBHMD.H does not name (a flat triangle) stays raw and says so.
    let m = hmd::read(&triangle(0x0600_1008)).unwrap();
    let (scene, notes) = raw_scene(&m);
    assert!(scene.meshes.is_empty());
    assert!(
        notes.iter().any(|n| n.0 == "envmap-not-exported"),
        "{notes:?}"
    );
}

fn corpus(suffix: &str) -> Option<(Hmd, String)> {
    let path = common::corpus_file("HMD", suffix)?;
    let lab = std::fs::read_to_string(path.with_extension("LAB")).unwrap();
    Some((hmd::read(&std::fs::read(path).unwrap()).unwrap(), lab))
}

/// The polygons a LAB's polygon primitives draw: the counts of its `H(2); M(H(n))` data
/// sections (one POLYGON IDX word each), commented-out lines skipped.
fn lab_polygons(lab: &str) -> usize {
    lab.lines()
        .map(|l| l.split("//").next().unwrap().trim())
        .filter_map(|l| l.strip_prefix("H(2); M(H("))
        .map(|rest| rest.split(')').next().unwrap().parse::<usize>().unwrap())
        .sum()
}

#[test]
fn envmap_samples_export_every_triangle_at_the_players_vertices() {
    let mut checked = 0;
    for (suffix, triangles) in [
        ("ENVMAP/STAR09.HMD", 100),
        ("ENVMAP/VENUS11.HMD", 1417),
        ("ENVMAP/YESNO5.HMD", 0),
    ] {
        let Some((m, lab)) = corpus(suffix) else {
            continue;
        };
        checked += 1;
        let want = lab_polygons(&lab);
        if triangles > 0 {
            assert_eq!(want, triangles, "{suffix}: the LAB's polygon count");
        }
        let (scene, notes) = raw_scene(&m);
        let meshes = gltf_positions(&scene);
        let got: usize = meshes.iter().map(|p| p.len() / 3).sum();
        assert_eq!(got, want, "{suffix}: triangles in the glTF");
        let codes: Vec<&str> = notes.iter().map(|n| n.0).collect();
        assert!(codes.contains(&"envmap-left-out"), "{suffix}: {notes:?}");
        for kept_raw in [
            "polygons-not-exported",
            "envmap-not-exported",
            "images-left-out",
        ] {
            assert!(!codes.contains(&kept_raw), "{suffix}: {notes:?}");
        }
        if !scene.skins.is_empty() {
            continue; // YESNO5's shared polygons: checked by tests/pose_vertices.rs
        }
        // Unskinned: every corner is a vertex of the file's vertex sections as `play` has them
        // (mesh-local, console axes).
        let p = Player::new(&m, &PlayOptions::default());
        let vertices: Vec<[f64; 3]> = m
            .regions
            .iter()
            .filter(|r| matches!(&r.body, RegionBody::Section(s) if s.role == SectionRole::Vertex))
            .flat_map(|r| p.vectors(r.offset, false).unwrap())
            .map(|v| v.map(f64::from))
            .collect();
        assert!(!vertices.is_empty(), "{suffix}");
        for c in meshes.iter().flatten() {
            assert!(vertices.contains(c), "{suffix}: corner {c:?} is no vertex");
        }
    }
    if checked == 0 {
        eprintln!("corpus missing: skipped");
    }
}

#[test]
fn venus11_image_is_read_by_its_count_and_noted_exactly() {
    let Some((m, _)) = corpus("ENVMAP/VENUS11.HMD") else {
        eprintln!("corpus missing: skipped");
        return;
    };
    // Its size field says 10 words for one 3-word entry: the entry is read by count, and the
    // image data right after it is the image section (the LAB: 256×16, 16-bit, at 0,480).
    let tims = image_tims(&m);
    assert_eq!(tims.len(), 1);
    let t = &tims[0];
    assert_eq!(
        (t.image.x, t.image.y, t.image.width, t.image.height, t.pmode),
        (0, 480, 256, 16, 2)
    );
    assert_eq!(t.image.data.len(), 256 * 16);
    let (_, notes) = raw_scene(&m);
    let unused = &notes.iter().find(|n| n.0 == "images-unused").unwrap().1;
    assert!(
        unused.starts_with("1 image(s)") && unused.ends_with("256×16 at VRAM (0, 480), 16-bit"),
        "{unused}"
    );
}
