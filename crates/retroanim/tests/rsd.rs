//! RSD family (RSD + PLY + MAT + GRP): the corpus sets read, validate and write back
//! byte-identical; RSD → TMD as rsdlink; TMD → RSD → TMD identical; hand-built files for every
//! MAT type; damaged files name file, line and column.

mod common;

use retroanim::formats::rsd::{self, Key, MatInfo, RsdSet};
use retroanim::formats::tmd::{self, flag, mode, PrimitiveData};
use retroanim::lab::{FsLoader, Loader, MemLoader};
use retroanim::report::{has_errors, Severity};

fn corpus_sets() -> Vec<(String, RsdSet)> {
    common::corpus_files("RSD")
        .into_iter()
        .map(|(name, path)| {
            let p = path.to_string_lossy().into_owned();
            let set = rsd::read_set(&p, &FsLoader).unwrap_or_else(|e| panic!("{name}: {e}"));
            (p, set)
        })
        .collect()
}

#[test]
fn every_corpus_file_writes_back_byte_identical() {
    let mut n = 0;
    for kind in ["RSD", "RSDPLY", "RSDMAT", "RSDGRP"] {
        for (name, path) in common::corpus_files(kind) {
            let data = std::fs::read(&path).unwrap();
            let p = path.to_string_lossy();
            let out = match kind {
                "RSD" => rsd::write_rsd(&rsd::read_rsd(&p, &data).unwrap()),
                "RSDPLY" => rsd::write_ply(&rsd::read_ply(&p, &data).unwrap()),
                "RSDMAT" => rsd::write_mat(&rsd::read_mat(&p, &data).unwrap()),
                _ => rsd::write_grp(&rsd::read_grp(&p, &data).unwrap()),
            }
            .unwrap();
            assert!(out == data, "{name}: written back differently");
            n += 1;
        }
    }
    if n > 0 {
        assert!(n >= 11 + 10 + 10 + 5, "only {n} corpus files");
    }
}

#[test]
fn corpus_sets_read_whole_and_validate() {
    for (path, set) in corpus_sets() {
        let issues = rsd::validate(&set);
        let errors: Vec<_> = issues
            .iter()
            .filter(|i| i.severity == Severity::Error)
            .collect();
        if set.missing.is_empty() {
            assert!(errors.is_empty(), "{path}: {errors:?}");
            assert!(set.ply.is_some() && set.mat.is_some(), "{path}");
        } else {
            // A set whose files are not in the corpus says which (a missing PLY or MAT is an
            // error, a missing GRP a warning), and nothing else is wrong.
            for m in &set.missing {
                assert!(
                    issues
                        .iter()
                        .any(|i| i.code.starts_with("missing-") && i.message.contains(m.as_str())),
                    "{path}: missing {m} unreported"
                );
            }
            assert!(
                errors.iter().all(|e| e.code.starts_with("missing-")),
                "{path}: {errors:?}"
            );
        }
        // The written set is the files read.
        for f in rsd::write_set(&set).unwrap() {
            let dir = std::path::Path::new(&path).parent().unwrap();
            let on_disk = if f.name.is_empty() {
                std::fs::read(&path).unwrap()
            } else {
                let found = std::fs::read_dir(dir)
                    .unwrap()
                    .filter_map(|e| e.ok())
                    .find(|e| {
                        e.file_name()
                            .to_string_lossy()
                            .eq_ignore_ascii_case(&f.name)
                    })
                    .unwrap_or_else(|| panic!("{path}: {} not beside it", f.name));
                std::fs::read(found.path()).unwrap()
            };
            assert!(on_disk == f.bytes, "{path}: {} differs", f.name);
        }
    }
}

#[test]
fn corpus_sets_link_to_valid_tmds() {
    for (path, set) in corpus_sets() {
        let Some(ply) = &set.ply else { continue };
        let linked = rsd::to_tmd(&set).unwrap_or_else(|e| panic!("{path}: {e}"));
        let bytes = tmd::write(&linked.tmd).unwrap();
        let back = tmd::read(&bytes).unwrap();
        assert_eq!(back, linked.tmd, "{path}");
        let issues = tmd::validate(&back);
        assert!(!has_errors(&issues), "{path}: {issues:?}");
        let o = &back.objects[0];
        assert_eq!(o.vertices.len(), ply.vertices.len(), "{path}");
        assert_eq!(o.normals.len(), ply.normals.len(), "{path}");
        // Every polygon has a material in the corpus: one packet each.
        assert_eq!(o.primitives.len(), ply.polygons.len(), "{path}");
        // Vertex positions are the PLY's, rounded.
        for (v, p) in o.vertices.iter().zip(&ply.vertices) {
            assert_eq!([v.x, v.y, v.z].map(f64::from), p.map(f64::round), "{path}");
        }
        // And back: the RSD made from the linked TMD links to the same TMD.
        let un = rsd::from_tmd(&back, "again", &[]).unwrap();
        let again = rsd::to_tmd_all(&un.sets).unwrap();
        assert_eq!(again.tmd, back, "{path}");
    }
}

#[test]
fn a_corpus_set_with_textures_links_them() {
    // CUBE0 names three TIMs and textures four of its eight polygons.
    let Some((path, set)) = corpus_sets()
        .into_iter()
        .find(|(_, s)| s.tims.iter().flatten().count() > 0 && s.ply.is_some())
    else {
        return;
    };
    let linked = rsd::to_tmd(&set).unwrap();
    assert!(linked.notes.is_empty(), "{path}: {:?}", linked.notes);
    let mat = set.mat.as_ref().unwrap();
    for m in &mat.materials {
        let Some(t) = m.info.texture() else { continue };
        let tim = set.tims[t as usize].as_ref().unwrap();
        for i in m.polygons.iter() {
            let p = &linked.tmd.objects[0].primitives[i as usize];
            let PrimitiveData::Polygon(q) = &p.data else {
                panic!()
            };
            let tsb = q.tsb().unwrap();
            let page = tmd::Tsb::from_bits(tsb);
            // The packet's texture page holds the TIM's image, in the TIM's depth.
            assert_eq!(
                u32::from(page.page & 0xF) * 64,
                u32::from(tim.image.x) / 64 * 64
            );
            assert_eq!(u32::from(page.tpf), u32::from(tim.pmode.min(2)), "{path}");
            if let Some(c) = &tim.clut {
                assert_eq!(
                    tmd::cba_position(q.cba().unwrap()),
                    (u32::from(c.x), u32::from(c.y))
                );
            }
        }
    }
}

#[test]
fn corpus_tmds_come_back_from_rsd_identical() {
    let (mut same, mut noted) = (0, 0);
    let mut codes = std::collections::BTreeMap::<&str, usize>::new();
    for (name, path) in common::corpus_files("TMD") {
        let data = std::fs::read(&path).unwrap();
        let Ok(t) = tmd::read(&data) else { continue };
        let un = rsd::from_tmd(&t, "m", &[]).unwrap();
        // Through the files: written, read back from memory, linked.
        let mut files = MemLoader::new();
        let mut roots = Vec::new();
        for (k, set) in un.sets.iter().enumerate() {
            for f in rsd::write_set(set).unwrap() {
                let n = if f.name.is_empty() {
                    format!("m{k}.rsd")
                } else {
                    f.name
                };
                files.insert(&n, f.bytes);
            }
            roots.push(format!("m{k}.rsd"));
        }
        let sets: Vec<RsdSet> = roots
            .iter()
            .map(|r| rsd::read_set(r, &files).unwrap())
            .collect();
        for s in &sets {
            let issues = rsd::validate(s);
            // The TIMs are not there; everything else is.
            assert!(
                issues
                    .iter()
                    .filter(|i| i.severity == Severity::Error)
                    .all(|i| i.code == "missing-texture"),
                "{name}: {issues:?}"
            );
        }
        let back = tmd::write(&rsd::to_tmd_all(&sets).unwrap().tmd).unwrap();
        if un.notes.is_empty() {
            assert!(back == data, "{name}: TMD → RSD → TMD differs with no note");
            same += 1;
        } else {
            noted += 1;
            // What the notes name aside (TGE bits, pads, scale, layout), every packet, vertex
            // and normal comes back.
            let linked = rsd::to_tmd_all(&sets).unwrap().tmd;
            let plain = |t: &tmd::Tmd| -> Vec<_> {
                t.objects
                    .iter()
                    .map(|o| {
                        let p: Vec<_> = o
                            .primitives
                            .iter()
                            .map(|p| {
                                // The first colour word repeats the mode byte, TGE included.
                                let mut data = p.data.clone();
                                if let PrimitiveData::Polygon(q) = &mut data {
                                    for c in q.colors.iter_mut() {
                                        c.x &= !mode::TGE;
                                    }
                                }
                                (p.olen, p.flag, p.mode & !mode::TGE, data)
                            })
                            .collect();
                        let v: Vec<_> = o
                            .vertices
                            .iter()
                            .chain(&o.normals)
                            .map(|v| [v.x, v.y, v.z])
                            .collect();
                        (p, v)
                    })
                    .collect()
            };
            if !un.notes.iter().any(|n| n.code == "primitive-dropped") {
                assert!(
                    plain(&linked) == plain(&t),
                    "{name}: packets differ beyond {:?}",
                    un.notes
                );
            }
            for n in &un.notes {
                *codes.entry(n.code).or_default() += 1;
            }
        }
    }
    eprintln!("TMD → RSD → TMD: {same} identical, {noted} with notes {codes:?}");
    if !common::corpus_files("TMD").is_empty() {
        assert!(same > 0);
    }
}

/// A hand-built set: a quad and seven triangles, one per MAT type, as text.
fn handbuilt() -> MemLoader {
    let rsd = "@RSD970401\n# comment\nPLY=t.ply\nMAT=t.mat\nGRP=t.grp\nNTEX=1\nTEX[0]=t.tim\n";
    let ply = "@PLY970401\n5 2 9\n0 0 0\n100 0 0\n100 100 0\n0 100 0\n50.5 -20.25 7\n\
               0 0 -1\n0.000000E+00 1.0 0\n\
               1 0 1 3 2 0 0 0 0\n0 0 1 2 0 0 1 0 0\n0 0 1 2 0 1 0 1 0\n0 0 1 4 0 0 0 0 0\n\
               0 1 2 4 0 0 0 0 0\n0 2 3 4 0 0 0 0 0\n0 3 0 4 0 0 0 0 0\n0 0 2 4 0 1 1 1 0\n2 0 4 0 0 0 0 0 0\n";
    let mat = "@MAT970401\n9\n\
               0 0 F C 255 0 0\n\
               1 0 G G 255 0 0 0 255 0 0 0 255 0 0 0\n\
               2 1 G G 255 0 0 0 255 0 0 0 255 0 0 0\n\
               3 2 F T 0 0 0 31 0 31 31 0 0\n\
               4 4 F D 0 0 0 31 0 31 31 0 0 10 20 30\n\
               5 1 F H 0 0 0 31 0 31 31 0 0 1 2 3 4 5 6 7 8 9 0 0 0\n\
               6 c F W 0 7 7 0 0 0 0 31 0 31 31 0 0\n\
               7 1 G S 0 7 7 0 0 0 0 31 0 31 31 0 0 9 9 9\n\
               8 1 F C 1 2 3\n";
    let grp = "@GRP970401\n2\nall 2 9\n0-4\n5,6,7-8\nnone 0 0\n";
    let mut m = MemLoader::new();
    m.insert("t.rsd", rsd)
        .insert("t.ply", ply)
        .insert("t.mat", mat)
        .insert("t.grp", grp)
        .insert("t.tim", handbuilt_tim());
    m
}

/// A 4-bit 16×16 TIM at VRAM (320, 256), CLUT at (0, 480).
fn handbuilt_tim() -> Vec<u8> {
    let mut t = Vec::new();
    let mut w = |v: u32| t.extend_from_slice(&v.to_le_bytes());
    w(0x10);
    w(0x08);
    w(12 + 32);
    w(480 << 16);
    w(16 | (1 << 16));
    for _ in 0..8 {
        w(0x7FFF_0000);
    }
    w(12 + 16 * 16 / 2);
    w(320 | (256 << 16));
    w(4 | (16 << 16));
    for _ in 0..32 {
        w(0x1234_5678);
    }
    t
}

#[test]
fn every_mat_type_reads_writes_and_links() {
    let files = handbuilt();
    let set = rsd::read_set("t.rsd", &files).unwrap();
    assert!(set.missing.is_empty(), "{:?}", set.missing);
    let issues = rsd::validate(&set);
    // D on a lit polygon (flag 4, semi) is valid only with fixed colour: warned, not an error.
    assert!(!has_errors(&issues), "{issues:?}");
    assert!(
        issues.iter().any(|i| i.code == "lit-colored-texture"),
        "{issues:?}"
    );
    let mat = set.mat.as_ref().unwrap();
    let letters: String = mat.materials.iter().map(|m| m.info.letter()).collect();
    assert_eq!(letters, "CGGTDHWSC");
    // Byte-identical write, and the canonical form reads back as the same model.
    for f in rsd::write_set(&set).unwrap() {
        let name = if f.name.is_empty() {
            "t.rsd".into()
        } else {
            f.name.clone()
        };
        assert_eq!(
            f.bytes,
            files.read(&name, 1 << 20).unwrap().unwrap(),
            "{name}"
        );
    }
    let mut canon = set.clone();
    canon.forget_layout();
    let mut again = MemLoader::new();
    for f in rsd::write_set(&canon).unwrap() {
        let name = if f.name.is_empty() {
            "t.rsd".into()
        } else {
            f.name
        };
        again.insert(&name, f.bytes);
    }
    again.insert("t.tim", handbuilt_tim());
    let mut reread = rsd::read_set("t.rsd", &again).unwrap();
    reread.forget_layout();
    assert_eq!(reread, canon);

    let linked = rsd::to_tmd(&set).unwrap();
    let codes: Vec<&str> = linked.notes.iter().map(|n| n.code).collect();
    assert!(codes.contains(&"texture-repeat-dropped"), "{codes:?}");
    assert!(codes.contains(&"lit-texture-colors-dropped"), "{codes:?}");
    let p = &linked.tmd.objects[0].primitives;
    let poly = |i: usize| match &p[i].data {
        PrimitiveData::Polygon(q) => q.clone(),
        d => panic!("{d:?}"),
    };
    // 0: lit flat coloured quad.
    assert_eq!((p[0].mode, p[0].flag), (0x28, 0));
    // 1: lit Gouraud with a colour per vertex: IIP and GRD, three colours, three normals.
    assert_eq!((p[1].mode, p[1].flag), (0x30, flag::GRD));
    assert_eq!((poly(1).colors.len(), poly(1).normals.len()), (3, 3));
    // 2: unlit G: Gouraud colours, no normals.
    assert_eq!((p[2].mode, p[2].flag), (0x30, flag::LGT));
    assert!(poly(2).normals.is_empty());
    // 3: lit flat textured, double-faced; the TIM at x 320 is page 5, 4-bit.
    assert_eq!((p[3].mode, p[3].flag), (0x24, flag::FCE));
    let t = poly(3);
    assert_eq!(t.tsb(), Some(5 | 0x10));
    assert_eq!(t.cba(), Some(480 << 6));
    // UVs: the image starts at page x 0, so unchanged.
    assert_eq!((t.uvs[1].u, t.uvs[1].v), (31, 0));
    // 4: lit D, semi-transparent: colours dropped, ABE.
    assert_eq!(p[4].mode, 0x24 | mode::ABE);
    assert!(poly(4).colors.is_empty());
    // 5: unlit H: Gouraud textured with three colours.
    assert_eq!((p[5].mode, p[5].flag), (0x34, flag::LGT));
    assert_eq!(poly(5).colors.len(), 3);
    // 6: W, semi-transparent with rate 1 (flag c = 4 | 8): ABR 1 in the TSB.
    assert_eq!(p[6].mode, 0x24 | mode::ABE);
    assert_eq!(tmd::Tsb::from_bits(poly(6).tsb().unwrap()).abr, 1);
    // 7: unlit S: one colour, textured.
    assert_eq!((p[7].mode, p[7].flag), (0x24, flag::LGT));
    assert_eq!(poly(7).colors[0].r, 9);
    // 8: a straight line.
    assert_eq!(p[8].code(), 2);
    // The group names every polygon, the second group none.
    let g = set.grp.as_ref().unwrap();
    assert_eq!(
        g.groups[0].lines[1].iter().collect::<Vec<_>>(),
        [5, 6, 7, 8]
    );
}

#[test]
fn an_edited_line_is_rewritten_and_the_rest_kept() {
    let files = handbuilt();
    let mut set = rsd::read_set("t.rsd", &files).unwrap();
    let ply = set.ply.as_mut().unwrap();
    ply.vertices[4] = [1.5, -2.0, 0.0];
    let before = String::from_utf8(files.read("t.ply", 1 << 20).unwrap().unwrap()).unwrap();
    let after = String::from_utf8(rsd::write_ply(ply).unwrap()).unwrap();
    let changed: Vec<(&str, &str)> = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed, [("50.5 -20.25 7", "1.5 -2 0")]);
    // A polygon added: the count line and the new line change, the rest stays.
    ply.polygons.push(ply.polygons[1]);
    let after = String::from_utf8(rsd::write_ply(ply).unwrap()).unwrap();
    assert!(after.contains("\n5 2 10\n"), "{after}");
    assert!(
        after.ends_with("2 0 4 0 0 0 0 0 0\n0 0 1 2 0 0 1 0 0\n"),
        "{after}"
    );
    let back = rsd::read_ply("t.ply", after.as_bytes()).unwrap();
    assert_eq!(back.polygons, ply.polygons);
    assert_eq!(back.vertices, ply.vertices);
}

#[test]
fn damaged_files_name_file_line_and_column() {
    let cases: [(&str, &str, &str); 8] = [
        (
            "a.ply",
            "@PLY970401\n1 0 0\n0 x 0\n",
            "a.ply:3:3: vertex: expected a number, found 'x'",
        ),
        (
            "a.ply",
            "@PLY970401\n# n\n2 0 0\n0 0 0\n",
            "a.ply:5:1: the file ends where vertex 1 (of 2) should follow",
        ),
        (
            "a.ply",
            "@PLY970401\n1 0 1\n0 0 0\n0 0 0 0 0 0 0 0\n",
            "a.ply:4:16: the polygon has 8 values, 9 expected",
        ),
        (
            "a.ply",
            "@PLZ970401\n",
            "a.ply:1:1: expected the ID @PLYnnnnnn, found '@PLZ970401'",
        ),
        (
            "a.mat",
            "@MAT970401\n1\n0 0 F Q 1 2 3\n",
            "a.mat:3:7: material type: expected C, G, T, D, H, W, S or N, found 'Q'",
        ),
        (
            "a.mat",
            "@MAT970401\n1\n0 0 F C 1 2 300\n",
            "a.mat:3:13: blue 300 is larger than 255",
        ),
        (
            "a.mat",
            "@MAT970401\n1\n5-2 0 F C 1 2 3\n",
            "a.mat:3:1: range 5-2 runs backwards",
        ),
        (
            "a.grp",
            "@GRP970401\n1\ng 1 1\n3 4x\n",
            "a.grp:4:3: polygon number: expected a number, found '4x'",
        ),
    ];
    for (file, text, want) in cases {
        let e = match &file[2..] {
            "ply" => rsd::read_ply(file, text.as_bytes()).map(|_| ()),
            "mat" => rsd::read_mat(file, text.as_bytes()).map(|_| ()),
            _ => rsd::read_grp(file, text.as_bytes()).map(|_| ()),
        }
        .unwrap_err();
        assert_eq!(e.to_string(), want);
    }
    let e = rsd::read_rsd("a.rsd", b"@RSD1\nNTEX=two\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 6), "{e}");
    // Through a set, the error names the part that is damaged.
    let mut files = handbuilt();
    files.insert("t.mat", "@MAT970401\n1\n0 0 F C 1 2\n");
    let e = rsd::read_set("t.rsd", &files).unwrap_err().to_string();
    assert!(e.contains("t.mat:3:"), "{e}");
}

#[test]
fn cross_references_are_checked() {
    let mut files = handbuilt();
    files.insert(
        "t.mat",
        "@MAT970401\n2\n0-7 0 F T 3 0 0 0 0 0 0 0 0\n9 0 F C 1 1 1\n",
    );
    files.insert("t.grp", "@GRP970401\n1\ng 1 5\n0-12\n");
    files.insert(
        "t.rsd",
        "@RSD970401\nPLY=t.ply\nMAT=t.mat\nGRP=t.grp\nNTEX=2\nTEX[0]=t.tim\nTEX[1]=gone.tim\n",
    );
    let set = rsd::read_set("t.rsd", &files).unwrap();
    let codes: Vec<String> = rsd::validate(&set).into_iter().map(|i| i.code).collect();
    for want in [
        "missing-texture",
        "texture-index",
        "material-range",
        "material-coverage",
        "group-count",
        "group-range",
    ] {
        assert!(codes.iter().any(|c| c == want), "{want} not in {codes:?}");
    }
    let mut files = handbuilt();
    files.insert("t.ply", "@PLY970401\n1 0 1\n0 0 0\n0 0 3 0 0 0 0 0 0\n");
    files.insert("t.mat", "@MAT970401\n1\n0 1 F C 1 1 1\n");
    let set = rsd::read_set("t.rsd", &files).unwrap();
    let codes: Vec<String> = rsd::validate(&set).into_iter().map(|i| i.code).collect();
    assert!(codes.iter().any(|c| c == "index-range"), "{codes:?}");
    // Files found case-insensitively; the RSD's own key spelling kept.
    let mut files = handbuilt();
    let ply = files.read("t.ply", 1 << 20).unwrap().unwrap();
    files.insert("T.PLY", ply);
    files.insert("t.rsd", "@RSD970401\nPLY=T.ply\nMAT=t.mat\n");
    let set = rsd::read_set("t.rsd", &files).unwrap();
    assert!(set.ply.is_some() && set.missing.is_empty());
    assert_eq!(set.rsd.get(&Key::Ply), Some("T.ply"));
    assert!(matches!(
        set.mat.as_ref().unwrap().materials[1].info,
        MatInfo::G(_)
    ));
}

#[test]
fn rsd_exports_to_gltf_the_validator_accepts() {
    let files = handbuilt();
    let set = rsd::read_set("t.rsd", &files).unwrap();
    let opts = retroanim::convert::Options::default();
    let out = retroanim::convert::rsd::convert_set(&set, retroanim::Format::Glb, &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.glb");
    std::fs::write(&p, &out.bytes).unwrap();
    common::assert_khronos_clean(&p);
    for (_, set) in corpus_sets() {
        if set.ply.is_none() {
            continue;
        }
        let out =
            retroanim::convert::rsd::convert_set(&set, retroanim::Format::Glb, &opts).unwrap();
        std::fs::write(&p, &out.bytes).unwrap();
        common::assert_khronos_clean(&p);
    }
}
