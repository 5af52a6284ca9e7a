//! RTM + the P3D it animates → a skinned, animated glTF (`convert` with `--p3d`): the Khronos
//! validator accepts it, and every skinned vertex sits, at several frames, where the RTM's
//! matrices put the model's rest vertex (weights decoded here from the selection bytes, the
//! matrices applied here, not by the library).

mod common;

use common::gltf_read::Gltf;
use retroanim::convert::{self, Options, RtmInput};
use retroanim::formats::p3d::{self, *};
use retroanim::formats::rtm::{self, BoneTransform, Frame, Name32};
use retroanim::{Error, Format, Model};

fn read_p3d(suffix: &str) -> Option<P3d> {
    let path = common::corpus_file("p3d-mlod", suffix)?;
    Some(p3d::read(&std::fs::read(path).unwrap()).unwrap())
}

fn corpus_rtm(suffix: &str) -> Option<rtm::Mlod> {
    let path = common::corpus_file("RTM", suffix)?;
    match rtm::read(&std::fs::read(path).unwrap()).unwrap() {
        rtm::Rtm::Mlod(m) => Some(m),
        rtm::Rtm::Bmtr(_) => panic!("the corpus RTMs are editable"),
    }
}

fn with_p3d(p3d: P3d) -> Options {
    Options {
        rtm: RtmInput {
            skeletons: None,
            p3d: Some(p3d),
            ..Default::default()
        },
        ..Options::default()
    }
}

/// One box: (selections and their weight byte for its 8 points, centre, half size).
type BoxSpec<'a> = (&'a [(&'a str, u8)], [f32; 3], f32);

/// A one-LOD MLOD of boxes (8 points, 6 quads each); each box's points are in the named
/// selections given for it, with the given weight byte.
fn boxes(spec: &[BoxSpec]) -> P3d {
    let mut points = Vec::new();
    let mut faces = Vec::new();
    let quads = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    for (_, c, h) in spec {
        let base = points.len() as u32;
        for k in 0..8 {
            let s = |bit: usize| if k & bit != 0 { *h } else { -*h };
            points.push(Point {
                pos: [c[0] + s(1), c[1] + s(2), c[2] + s(4)],
                flags: 0,
            });
        }
        for q in quads {
            faces.push(Face {
                n: 4,
                vertices: q
                    .iter()
                    .map(|&i| VertexRef {
                        point: base + i,
                        normal: 0,
                        uv: [0.0, 0.0],
                    })
                    .collect(),
                unused_slots: SlotBytes::default(),
                flags: 0,
                texture: Text::from(""),
                texture_padding: Bytes::default(),
                material: Some(Text::from("")),
            });
        }
    }
    let mut names: Vec<&str> = Vec::new();
    for (sel, _, _) in spec {
        for (n, _) in *sel {
            if !names.contains(n) {
                names.push(n);
            }
        }
    }
    let mut taggs: Vec<Tagg> = names
        .iter()
        .map(|name| {
            let mut bytes = vec![0u8; points.len()];
            for (k, (sel, _, _)) in spec.iter().enumerate() {
                if let Some((_, b)) = sel.iter().find(|(n, _)| n == name) {
                    bytes[8 * k..8 * k + 8].fill(*b);
                }
            }
            Tagg {
                active: Some(1),
                name: Text::from(*name),
                name_padding: Bytes::default(),
                data: TaggData::Selection {
                    points: Bytes(bytes),
                    faces: Bytes(vec![0; faces.len()]),
                },
            }
        })
        .collect();
    taggs.push(Tagg {
        active: Some(1),
        name: Text::from("#EndOfFile#"),
        name_padding: Bytes::default(),
        data: TaggData::EndOfFile,
    });
    P3d::Mlod(p3d::Mlod {
        version: 0x101,
        lods: vec![Lod {
            signature: Signature::P3dm,
            header_size: 28,
            version: 0x100,
            flags: 0,
            header_extra: Bytes::default(),
            points,
            normals: vec![[0.0, 1.0, 0.0]],
            faces,
            taggs,
            resolution: 1.0,
        }],
        trailing: Bytes::default(),
    })
}

/// The weight a selection byte gives (decoded here: 0 none, else (256 − b) / 255).
fn weight(b: u8) -> f64 {
    if b == 0 {
        0.0
    } else {
        (256.0 - b as f64) / 255.0
    }
}

/// Where the engine puts P3D point `p` of LOD `lod` at frame `f`: the four largest bone
/// weights, scaled to sum to 1, each applying the bone's RTM matrix to the rest position; no
/// bone selection: the rest position. In the model's axes.
fn expected(m: &rtm::Mlod, f: usize, model: &p3d::Mlod, lod: usize, p: usize) -> [f64; 3] {
    let l = &model.lods[lod];
    let mut inf: Vec<(usize, f64)> = Vec::new();
    for t in &l.taggs {
        let TaggData::Selection { points, .. } = &t.data else {
            continue;
        };
        let name = String::from_utf8_lossy(t.name.as_bytes()).to_lowercase();
        let Some(b) = m.bones.iter().position(|x| x.name.to_lowercase() == name) else {
            continue;
        };
        let w = weight(points.0[p]);
        if w > 0.0 {
            inf.push((b, w));
        }
    }
    let rest = l.points[p].pos.map(|v| v as f64);
    if inf.is_empty() {
        return rest;
    }
    inf.sort_by(|a, b| b.1.total_cmp(&a.1));
    inf.truncate(4);
    let sum: f64 = inf.iter().map(|e| e.1).sum();
    let mut out = [0.0; 3];
    for (b, w) in inf {
        let t = m.frames[f]
            .transforms
            .iter()
            .find(|t| t.bone.name.eq_ignore_ascii_case(&m.bones[b].name))
            .unwrap();
        let a = t.matrix.map(|v| v as f64);
        for i in 0..3 {
            let v = a[i] * rest[0] + a[3 + i] * rest[1] + a[6 + i] * rest[2] + a[9 + i];
            out[i] += w / sum * v;
        }
    }
    out
}

/// Converts, validates with Khronos, and checks every skinned vertex at `frames` against
/// [`expected`] (within `tol` metres). Returns the conversion's notes and how far the
/// farthest vertex moved from its rest position over those frames.
fn check(m: &rtm::Mlod, p3d: &P3d, frames: &[usize], tol: f64) -> (Vec<convert::Note>, f64) {
    let model = Model::Rtm(rtm::Rtm::Mlod(m.clone()));
    let out = convert::convert(&model, Format::Gltf, &with_p3d(p3d.clone())).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skinned.gltf");
    std::fs::write(&path, &out.bytes).unwrap();
    common::assert_khronos_clean(&path);
    let P3d::Mlod(mlod) = p3d else { unreachable!() };
    let g = Gltf::parse(&out.bytes);
    assert_eq!(g.json["skins"].as_array().unwrap().len(), 1);
    // Every vertex's rest position (glTF axes), in skinned_positions' order.
    let rest = g.mesh_positions();
    let l = &mlod.lods[0];
    // The P3D points each vertex may come from (same rest position, x negated back).
    let candidates: Vec<Vec<usize>> = rest
        .iter()
        .map(|r| {
            (0..l.points.len())
                .filter(|&p| {
                    let q = l.points[p].pos;
                    (-r[0] - q[0] as f64).abs() < 1e-6
                        && (r[1] - q[1] as f64).abs() < 1e-6
                        && (r[2] - q[2] as f64).abs() < 1e-6
                })
                .collect()
        })
        .collect();
    assert!(candidates.iter().all(|c| !c.is_empty()));
    let mut moved: f64 = 0.0;
    for &f in frames {
        let worlds = g.world_matrices(Some((0, f)));
        let skinned = g.skinned_positions(&worlds);
        assert_eq!(skinned.len(), rest.len());
        for (v, s) in skinned.iter().enumerate() {
            let got = [-s[0], s[1], s[2]];
            let errs: Vec<f64> = candidates[v]
                .iter()
                .map(|&p| {
                    let want = expected(m, f, mlod, 0, p);
                    (0..3).map(|i| (got[i] - want[i]).abs()).fold(0.0, f64::max)
                })
                .collect();
            let best = errs.iter().copied().fold(f64::INFINITY, f64::min);
            assert!(
                best <= tol,
                "frame {f} vertex {v} (points {:?}): {got:?} is {best} m from where the RTM puts it",
                candidates[v]
            );
            let r = rest[v];
            moved = moved.max((0..3).map(|i| (s[i] - r[i]).abs()).fold(0.0, f64::max));
        }
    }
    (out.notes, moved)
}

/// A rotation of `deg` degrees about Y then a move, as the RTM's 12 numbers.
fn about_y(deg: f32, pos: [f32; 3]) -> [f32; 12] {
    let (s, c) = deg.to_radians().sin_cos();
    [c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c, pos[0], pos[1], pos[2]]
}

fn hand_rtm() -> rtm::Mlod {
    let bones = ["Pelvis", "Spine", "Head"];
    let frame = |phase: f32, ms: [[f32; 12]; 3]| Frame {
        phase,
        transforms: bones
            .iter()
            .zip(ms)
            .map(|(b, matrix)| BoneTransform {
                bone: Name32::new(*b),
                matrix,
            })
            .collect(),
    };
    rtm::Mlod {
        mdat: None,
        displacement: [0.0; 3],
        v0100: false,
        bones: bones.iter().map(|b| Name32::new(*b)).collect(),
        frames: vec![
            frame(0.0, [about_y(0.0, [0.0; 3]); 3]),
            frame(
                0.5,
                [
                    about_y(0.0, [0.0, 0.5, 0.0]),
                    about_y(30.0, [0.1, 0.0, 0.0]),
                    about_y(-45.0, [0.0, 0.0, 0.3]),
                ],
            ),
            frame(
                1.0,
                [
                    about_y(90.0, [1.0, 0.0, 0.0]),
                    about_y(180.0, [0.0, 0.0, 0.0]),
                    about_y(0.0, [0.0, 2.0, 0.0]),
                ],
            ),
        ],
    }
}

/// Boxes named after bones the corpus man skeleton has, one weighted half and half, one in a
/// selection that is no bone, one in none.
fn hand_model() -> P3d {
    boxes(&[
        (&[("pelvis", 1)], [0.0, 1.0, 0.0], 0.1),
        (&[("Spine", 1), ("not a bone", 1)], [0.0, 1.3, 0.0], 0.1),
        (&[("Head", 1)], [0.0, 1.7, 0.0], 0.1),
        (&[("Spine", 128), ("Head", 128)], [0.0, 1.5, 0.0], 0.05),
        (&[("not a bone", 1)], [0.5, 0.0, 0.0], 0.2),
    ])
}

#[test]
fn hand_built_rtm_skins_hand_built_boxes_exactly() {
    let m = hand_rtm();
    let (notes, moved) = check(&m, &hand_model(), &[0, 1, 2], 1e-5);
    assert!(moved > 0.5, "the animation moves the boxes ({moved})");
    let note = |code: &str| notes.iter().find(|n| n.code == code).map(|n| &n.message);
    assert!(
        note("vertices-on-root").is_some_and(|m| m.starts_with("8 of LOD 0's points")),
        "{notes:?}"
    );
    assert!(note("bones-without-selection").is_none(), "{notes:?}");
    // The half-and-half box sits halfway between the two bones' placements of it.
    let P3d::Mlod(model) = hand_model() else {
        unreachable!()
    };
    let p = 24; // first point of box 3
    let half = expected(&m, 2, &model, 0, p);
    let rest = model.lods[0].points[p].pos;
    let spine = [-rest[0] as f64, rest[1] as f64, -rest[2] as f64]; // 180° about y
    let head = [rest[0] as f64, rest[1] as f64 + 2.0, rest[2] as f64];
    for i in 0..3 {
        assert!((half[i] - (spine[i] + head[i]) / 2.0).abs() < 1e-6);
    }
}

#[test]
fn corpus_rtm_skins_the_hand_built_boxes() {
    let Some(m) = corpus_rtm("drink_prone.rtm") else {
        return;
    };
    let n = m.frames.len();
    let (notes, moved) = check(&m, &hand_model(), &[0, n / 3, n / 2, n - 1], 1e-4);
    assert!(moved > 0.05, "{moved}");
    let msg = notes
        .iter()
        .find(|n| n.code == "bones-without-selection")
        .map(|n| n.message.clone())
        .unwrap_or_default();
    assert!(
        msg.starts_with(&format!(
            "{} of the RTM's {}",
            m.bones.len() - 3,
            m.bones.len()
        )),
        "{notes:?}"
    );
}

#[test]
fn corpus_rtm_skins_corpus_models_whose_selections_name_its_bones() {
    let Some(m) = corpus_rtm("drink_prone.rtm") else {
        return;
    };
    let n = m.frames.len();
    // A man-shaped animation base (one selection per bone, weight 1) and a parachute harness
    // weighted to up to four bones at a time (weights that do not sum to 1).
    for (suffix, rescaled) in [
        ("AGM_FastRoping/animbase/agm_fastroping.p3d", false),
        ("AGM_Parachute/Gurtgeschirr.p3d", true),
    ] {
        let p3d = read_p3d(suffix).unwrap();
        let (notes, moved) = check(&m, &p3d, &[0, n / 2, n - 1], 1e-4);
        assert!(moved > 0.1, "{suffix}: {moved}");
        assert_eq!(
            notes.iter().any(|n| n.code == "weights-rescaled"),
            rescaled,
            "{suffix}: {notes:?}"
        );
    }
}

#[test]
fn what_cannot_be_skinned_is_an_error_naming_the_option() {
    let m = hand_rtm();
    let model = Model::Rtm(rtm::Rtm::Mlod(m));
    let option = |opts: &Options| match convert::convert(&model, Format::Glb, opts) {
        Err(Error::Option { option, what }) => (option, what),
        other => panic!("{other:?}"),
    };
    // --lod alone.
    let lod_alone = Options {
        p3d: convert::P3dSelection {
            lod: Some(1.0),
            base: None,
        },
        ..Options::default()
    };
    let (o, what) = option(&lod_alone);
    assert_eq!(o, "lod");
    assert!(what.contains("--p3d"), "{what}");
    // A model none of whose selections is a bone.
    let (o, what) = option(&with_p3d(boxes(&[(&[("wheel", 1)], [0.0; 3], 1.0)])));
    assert_eq!(o, "p3d");
    assert!(what.contains("Pelvis"), "{what}");
    // A LOD that does not exist.
    let mut opts = with_p3d(hand_model());
    opts.p3d.lod = Some(1000.0);
    let (o, what) = option(&opts);
    assert_eq!(o, "lod");
    assert!(what.contains("1000"), "{what}");
    // --p3d on a conversion that reads no model: the P3D → glTF export.
    let p = Model::P3d(hand_model());
    match convert::convert(&p, Format::Glb, &with_p3d(hand_model())) {
        Err(Error::Option { option, .. }) => assert_eq!(option, "p3d"),
        other => panic!("{other:?}"),
    }
    // Binarised models whose selections name none of the RTM's bones (KAM's v73 model has
    // none, the CWR-CE v7 fixture one): the same error as for an MLOD, through the option
    // table and the library call.
    for file in [
        "pharma/models/iv/kat_iv.p3d",
        "fixtures/p3d/animated_morph_odol.p3d",
    ] {
        if let Some(path) = common::corpus_file("p3d-odol", file) {
            let odol = p3d::read(&std::fs::read(path).unwrap()).unwrap();
            let (o, what) = option(&with_p3d(odol.clone()));
            assert_eq!(o, "p3d");
            assert!(what.contains("no named selection of its"), "{what}");
            assert!(what.contains("Pelvis"), "{what}");
            let (scene, notes) =
                rtm::skinned_scene(&hand_rtm(), &odol, 0, &Default::default()).unwrap();
            assert_eq!(scene.skins.len(), 1);
            assert!(notes.iter().any(|n| n.code == "bones-without-selection"));
        }
    }
}
