//! The LAB assembler and disassembler (`lab`): Sony's labp sources in the corpus
//! assemble to the HMD files beside them, every corpus HMD survives disassembly and assembly,
//! edits in LAB play back, and hostile sources fail cleanly with their position.

mod common;

use std::path::{Path, PathBuf};

use retroanim::formats::hmd;
use retroanim::lab;

/// The corpus file of manifest kind `HMD` that sits beside `lab` with the same stem (any case).
fn hmd_beside(lab_path: &Path) -> Option<PathBuf> {
    let stem = lab_path.file_stem()?.to_str()?.to_ascii_lowercase();
    std::fs::read_dir(lab_path.parent()?)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e.eq_ignore_ascii_case("hmd"))
                && p.file_stem()
                    .and_then(|s| s.to_str())
                    .is_some_and(|s| s.to_ascii_lowercase() == stem)
        })
}

fn assemble_file(path: &Path) -> Result<Vec<u8>, lab::LabError> {
    lab::assemble(
        path.to_str().unwrap(),
        &lab::FsLoader,
        &lab::LabOptions::default(),
    )
}

/// The first differing byte of two buffers, for messages.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first difference at byte {i} (0x{i:x}): {:#04x} vs {:#04x}",
            a[i], b[i]
        ),
        None => format!("lengths {} vs {}", a.len(), b.len()),
    }
}

#[test]
fn every_corpus_lab_assembles_to_the_hmd_beside_it() {
    let files = common::corpus_files("LAB");
    let mut identical = Vec::new();
    let mut different = Vec::new();
    let mut unpaired = Vec::new();
    for (name, path) in &files {
        let out = assemble_file(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        match hmd_beside(path) {
            Some(h) => {
                let want = std::fs::read(&h).unwrap();
                if out == want {
                    identical.push(name.clone());
                } else {
                    different.push(format!("{name}: {}", first_difference(&out, &want)));
                }
            }
            None => {
                // No HMD beside it: the output must still be an HMD the reader accepts.
                hmd::read(&out).unwrap_or_else(|e| panic!("{name} assembles to a bad HMD: {e}"));
                unpaired.push(name.clone());
            }
        }
    }
    eprintln!(
        "LAB: {} identical, {} different, {} without an HMD beside them",
        identical.len(),
        different.len(),
        unpaired.len()
    );
    for d in &different {
        eprintln!("  differs: {d}");
    }
    assert!(different.is_empty(), "{different:#?}");
    if !files.is_empty() {
        assert!(identical.len() >= 30, "{identical:?}");
    }
}

#[test]
fn every_corpus_hmd_disassembles_to_lab_that_assembles_back() {
    let files = common::corpus_files("HMD");
    let mut failures = Vec::new();
    for (name, path) in &files {
        let data = std::fs::read(path).unwrap();
        let text = lab::disassemble_bytes(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        match lab::assemble_str(
            "disassembled.lab",
            &text,
            &lab::MemLoader::new(),
            &lab::LabOptions::default(),
        ) {
            Ok(out) if out == data => {}
            Ok(out) => failures.push(format!("{name}: {}", first_difference(&out, &data))),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "HMD round trip through LAB: {} of {} identical",
        files.len() - failures.len(),
        files.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The translation of coordinate `index` over `frames` updates.
fn trajectory(data: &[u8], index: usize, frames: usize) -> Vec<[i32; 3]> {
    let m = hmd::read(data).unwrap();
    let mut p = hmd::Player::new(&m, &hmd::PlayOptions::default());
    (0..frames)
        .map(|_| {
            p.step().unwrap();
            p.frame().coordinates[index].local.t
        })
        .collect()
}

fn interp_lab() -> Option<(PathBuf, String)> {
    let path = common::corpus_file("LAB", "ANIM/INTERP/INTERP.LAB")?;
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    Some((path, text))
}

fn assemble_text(path: &Path, text: &str) -> Vec<u8> {
    lab::assemble_str(
        path.to_str().unwrap(),
        text,
        &lab::FsLoader,
        &lab::LabOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// INTERP.LAB's Coord_Linear (coordinate 5) moves linearly through LinearKey0..3, the corners
/// (PX0..3, PY0..3, PZ0..3) of a square of side 2000.
const LINEAR: usize = 5;

#[test]
fn edited_key_frame_value_plays() {
    let Some((path, text)) = interp_lab() else {
        return;
    };
    let before = trajectory(&assemble_text(&path, &text), LINEAR, 400);
    assert!(before.iter().all(|t| t[0].abs() <= 1000));
    // Move the second corner's x from 1000 to 2000 (PX1 feeds LinearKey1 only via the macro).
    let edited = text.replacen("#define PX1\t 1000", "#define PX1\t 2000", 1);
    assert_ne!(edited, text, "INTERP.LAB defines PX1 as 1000");
    let after = trajectory(&assemble_text(&path, &edited), LINEAR, 400);
    assert!(
        after.contains(&[2000, -1000, 0]),
        "the edited key frame (2000, -1000, 0) is reached"
    );
    assert!(!before.contains(&[2000, -1000, 0]));
    assert!(before.contains(&[1000, -1000, 0]), "the original corner");
}

#[test]
fn added_descriptor_plays() {
    let Some((path, text)) = interp_lab() else {
        return;
    };
    // A new key frame between LinearKey0 and LinearKey1, at (5000, 0, 0); labp moves every
    // label after it.
    let desc = "LinearSeqBegin:\n\tSEQD(NORMAL)|TYPE_IDX((InterpLinear - InterpFuncSect_0000) / 4 - 1)\n\t\t|TFRAME(50)|PARAM_IDX((LinearKey0 - ParamSect_0000) / 4);\n";
    let added = "\tSEQD(NORMAL)|TYPE_IDX((InterpLinear - InterpFuncSect_0000) / 4 - 1)\n\t\t|TFRAME(50)|PARAM_IDX((LinearKeyNew - ParamSect_0000) / 4);\n";
    assert!(text.contains(desc), "INTERP.LAB's linear sequence");
    let edited = text.replacen(desc, &format!("{desc}{added}"), 1).replacen(
        "LinearKey1:",
        "LinearKeyNew:\n\t5000; 0; 0;\nLinearKey1:",
        1,
    );
    let before = assemble_text(&path, &text);
    let after = assemble_text(&path, &edited);
    assert_eq!(
        after.len(),
        before.len() + 16,
        "one descriptor and three words more"
    );
    let t = trajectory(&after, LINEAR, 400);
    assert!(t.contains(&[5000, 0, 0]), "the added key frame is reached");
    assert!(t.contains(&[1000, -1000, 0]), "and the old ones still are");
    assert!(!trajectory(&before, LINEAR, 400).contains(&[5000, 0, 0]));
}

/// Assembles in-memory files (the first is the root) and returns the error, checking that it
/// came back quickly.
fn hostile(files: &[(&str, &str)], options: &lab::LabOptions) -> lab::LabError {
    let mut loader = lab::MemLoader::new();
    for (name, text) in files {
        loader.insert(name, text.as_bytes());
    }
    let start = std::time::Instant::now();
    let e = lab::assemble(files[0].0, &loader, options).expect_err("must fail");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    e
}

fn at(e: &lab::LabError) -> (String, u32, u32) {
    (e.file.clone(), e.line, e.column)
}

#[test]
fn include_cycle_is_an_error_with_the_chain() {
    let e = hostile(
        &[
            ("dir/a.lab", "1;\n#include \"B.INC\"\n"),
            ("dir/b.inc", "2;\n  #include \"a.lab\"\n"),
        ],
        &lab::LabOptions::default(),
    );
    assert_eq!(e.kind, lab::LabErrorKind::Include, "{e}");
    assert_eq!(at(&e), ("dir/b.inc".into(), 2, 4), "{e}");
    assert_eq!(e.included_from.len(), 1);
    assert_eq!(
        (e.included_from[0].file.as_str(), e.included_from[0].line),
        ("dir/a.lab", 2)
    );
    assert!(
        e.to_string().starts_with("dir/b.inc:2:4: include cycle"),
        "{e}"
    );
}

#[test]
fn undefined_label_names_its_position() {
    let e = hostile(
        &[("m.lab", "Start:\n\tStart / 4;\n\t1 + Nowhere / 4;\n")],
        &lab::LabOptions::default(),
    );
    assert_eq!(e.kind, lab::LabErrorKind::Label);
    assert_eq!(at(&e), ("m.lab".into(), 3, 6), "{e}");
    assert!(e.message.contains("Nowhere"));
}

#[test]
fn self_referencing_macros_stop_expanding() {
    // C rules: a macro is not expanded inside itself, so `A` stays `A` (then an undefined label).
    let e = hostile(
        &[("m.lab", "#define A B + 1\n#define B A * 2\n\tA;\n")],
        &lab::LabOptions::default(),
    );
    assert_eq!(e.kind, lab::LabErrorKind::Label, "{e}");
    assert_eq!(at(&e), ("m.lab".into(), 3, 2));
}

#[test]
fn exponential_macros_hit_the_token_limit() {
    // Each level doubles: X30 would be 2^30 items, the "huge repeat count" of a language
    // without a repeat directive.
    let mut text = String::from("#define X0 1;\n");
    for k in 1..=30 {
        text.push_str(&format!("#define X{k} X{} X{}\n", k - 1, k - 1));
    }
    text.push_str("X30\n");
    let e = hostile(&[("bomb.lab", &text)], &lab::LabOptions::default());
    assert_eq!(e.kind, lab::LabErrorKind::Limit, "{e}");
    assert_eq!(at(&e), ("bomb.lab".into(), 32, 1));
}

#[test]
fn large_output_hits_the_output_limit() {
    let options = lab::LabOptions {
        max_output_bytes: 1000,
        ..lab::LabOptions::default()
    };
    let mut text = String::from("#define X0 0;\n");
    for k in 1..=10 {
        text.push_str(&format!("#define X{k} X{} X{}\n", k - 1, k - 1));
    }
    text.push_str("X10\n");
    let e = hostile(&[("big.lab", &text)], &options);
    assert_eq!(e.kind, lab::LabErrorKind::Limit, "{e}");
    assert!(e.message.contains("1000 bytes"), "{e}");
}

#[test]
fn unterminated_strings_comments_and_calls_are_errors() {
    let cases: [(&str, u32, u32); 5] = [
        ("1;\n#include \"never.inc\n", 2, 10),
        ("1;\n  /* open\n 2;\n", 2, 3),
        ("#define F(a) a\n\tF(1;\n", 2, 2),
        ("\tH(1;\n", 1, 5),
        ("\t'x;\n", 1, 2),
    ];
    for (text, line, col) in cases {
        let e = hostile(&[("u.lab", text)], &lab::LabOptions::default());
        assert_eq!(e.kind, lab::LabErrorKind::Syntax, "{text:?}: {e}");
        assert_eq!((e.line, e.column), (line, col), "{text:?}: {e}");
    }
}

#[test]
fn deep_nesting_is_bounded() {
    let deep = format!("\t{}1{};\n", "(".repeat(100_000), ")".repeat(100_000));
    let e = hostile(&[("deep.lab", &deep)], &lab::LabOptions::default());
    assert_eq!(e.kind, lab::LabErrorKind::Limit, "{e}");
    let neg = format!("\t{}1;\n", "-".repeat(100_000));
    let e = hostile(&[("neg.lab", &neg)], &lab::LabOptions::default());
    assert_eq!(e.kind, lab::LabErrorKind::Limit, "{e}");
    let args = format!(
        "#define F(x) x\n\t{}1{};\n",
        "F(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = hostile(&[("args.lab", &args)], &lab::LabOptions::default());
    assert_eq!(e.kind, lab::LabErrorKind::Limit, "{e}");
}

#[test]
fn long_unary_chains_in_if_cost_no_stack() {
    // 100,000 prefix operators in `#if` (a 200 KB line) evaluate like C, with no recursion: the
    // even number of `-` gives 1, and `!` after them turns it to 0.
    for (ops, want) in [("- ", 1u8), ("~ ", 1), ("! ", 1)] {
        let src = format!(
            "#if {}1\n\tB(1);\n#else\n\tB(2);\n#endif\n#if {}! 1\n\tB(3);\n#else\n\tB(4);\n#endif\n",
            ops.repeat(100_000),
            ops.repeat(100_000)
        );
        let out = lab::assemble_str("u.lab", &src, &lab::MemLoader::new(), &Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out, [want, 4], "{ops}");
    }
    let deep = format!(
        "#if {}1{}\n#endif\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = hostile(&[("deep_if.lab", &deep)], &lab::LabOptions::default());
    assert!(e.to_string().contains("nested too deeply"), "{e}");
}

#[test]
fn values_that_do_not_fit_and_division_by_zero_are_errors() {
    let e = hostile(&[("v.lab", "\tB(256);\n")], &lab::LabOptions::default());
    assert_eq!((e.kind, e.line, e.column), (lab::LabErrorKind::Value, 1, 2));
    let e = hostile(&[("v.lab", "\tH(-32769);\n")], &lab::LabOptions::default());
    assert_eq!(e.kind, lab::LabErrorKind::Value);
    let e = hostile(
        &[("v.lab", "L:\n\t4 / (L - L);\n")],
        &lab::LabOptions::default(),
    );
    assert_eq!((e.kind, e.line), (lab::LabErrorKind::Value, 2));
    let e = hostile(
        &[("v.lab", "\t0x100000000;\n")],
        &lab::LabOptions::default(),
    );
    assert_eq!(e.kind, lab::LabErrorKind::Syntax);
}

#[test]
fn labp_items_and_labels_encode_as_the_manual_says() {
    // DC p. 2-16/2-17: items in address order; B/H/W sizes; M sets the item's own MSB; labels
    // are byte addresses; `/ 4` makes word offsets; C precedence for `* /` over `+ -`.
    let src = "#include <HMD/HMD.DEF>\n\
               Top:\tB(0x12); B(-1); H(0x3456);\n\
               \tM(B(1)); B(0); M(H(2));\n\
               Next:\tNext / 4; M(Top / 4 + 1);\n\
               \t640 + 5 * 32 / 4; 1 - 2 - 3; ~0 & 0xff | 0x100;\n\
               \tSEQD(JUMP)|SID_DST(1)|SID_CND(2)|SEQ_IDX(3);\n\
               \tRotMatrix(0, 1024, 0);\n";
    let out = lab::assemble_str("t.lab", src, &lab::MemLoader::new(), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut want: Vec<u8> = vec![0x12, 0xFF, 0x56, 0x34, 0x81, 0x00, 0x02, 0x80];
    for w in [
        2u32,
        0x8000_0001,
        680,
        (-4i32) as u32,
        0x1FF,
        0x8000_0000 | (1 << 23) | (2 << 16) | 3,
    ] {
        want.extend(w.to_le_bytes());
    }
    // RotMatrix(0, 90°, 0): [[0 0 4096] [0 4096 0] [-4096 0 0]] and a pad halfword.
    for v in [0i16, 0, 4096, 0, 4096, 0, -4096, 0, 0, 0] {
        want.extend(v.to_le_bytes());
    }
    assert_eq!(out, want);
}

#[test]
fn labels_inside_macro_arguments_name_their_word() {
    // labp accepts a label wherever a word can stand, so a label inside a macro's argument list
    // (`MATRIX(...)` expands each argument into `H(arg)` or `(arg)`) names the word it lands on.
    let src = "#include <HMD/HMD.DEF>\n\
               Coord:\t0;\n\
               \tMATRIX(4096, 0, 0, 0, 4096, 0, 0, 0, 4096,\n\
               \t\tTx: 0, Ty: -100, 0);\n\
               \tSVECTOR(Rot: 1, 2, 3);\n\
               \tTx / 4; Ty / 4; Rot; M(B(Inner: 7)); Inner;\n";
    let out = lab::assemble_str("t.lab", src, &lab::MemLoader::new(), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // flg (4) + nine halfwords and a pad (20) put tx at byte 24, ty at 28; the SVECTOR follows
    // tz (32..36) at 36; the five words after it start at 44, so the B() is at 64.
    let word = |at: usize| u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
    assert_eq!(word(28), (-100i32) as u32, "ty itself is assembled");
    assert_eq!(word(44), 24 / 4, "Tx names the translation's x word");
    assert_eq!(word(48), 28 / 4, "Ty names its y word");
    assert_eq!(word(52), 36, "Rot names the SVECTOR's first halfword");
    assert_eq!(out[56], 0x87, "M(B(Inner: 7)) keeps its value and bit");
    assert_eq!(word(57), 56, "Inner names the byte it stands in");
    // A label defined both outside and inside an item is still a duplicate.
    let dup = "Twice: 0; H(Twice: 1);\n";
    let e = lab::assemble_str("d.lab", dup, &lab::MemLoader::new(), &Default::default())
        .expect_err("a label defined twice");
    assert!(e.to_string().contains("defined twice"), "{e}");
}

#[test]
fn includes_resolve_beside_then_include_folders_then_builtin() {
    let mut loader = lab::MemLoader::new();
    loader
        .insert(
            "src/m.lab",
            "#include \"Sub/Defs.Inc\"\n#include <extra.def>\nVALUE; OTHER; ONE;\n",
        )
        .insert("src/SUB/DEFS.INC", "#define VALUE 7\n")
        .insert("inc/EXTRA.DEF", "#define OTHER 9\n#include <hmd/hmd.def>\n");
    let options = lab::LabOptions {
        include_dirs: vec!["inc".into()],
        ..Default::default()
    };
    let out = lab::assemble("src/m.lab", &loader, &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out,
        [7u32, 9, 4096]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>()
    );
    // Without the folder the include is missing, named with its position.
    let e = lab::assemble("src/m.lab", &loader, &Default::default()).unwrap_err();
    assert_eq!(
        (e.kind, e.line, e.column),
        (lab::LabErrorKind::Include, 2, 2)
    );
    // Without the built-in definitions, hmd.def is missing too.
    let options = lab::LabOptions {
        include_dirs: vec!["inc".into()],
        builtin_hmd_def: false,
        ..Default::default()
    };
    let e = lab::assemble("src/m.lab", &loader, &options).unwrap_err();
    assert_eq!(e.file, "inc/EXTRA.DEF");
    assert_eq!(e.included_from[0].file, "src/m.lab");
}

#[test]
fn conditionals_and_function_macros() {
    let src = "#define A 1\n#if A && !defined(B)\n#define F(x, y) ((x) * 10 + \\\n (y))\n#elif 1\n#error no\n#else\n#error no\n#endif\n#ifndef B\nF(3,\n 4);\n#endif\n#undef A\n#ifdef A\n#error no\n#endif\n#define CAT(a, b) a ## b\nCAT(0x, 10);\n";
    let out = lab::assemble_str("c.lab", src, &lab::MemLoader::new(), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        out,
        [34u32, 16]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>()
    );
    let e = lab::assemble_str(
        "c.lab",
        "#if 1\n1;\n",
        &lab::MemLoader::new(),
        &Default::default(),
    )
    .unwrap_err();
    assert_eq!(
        (e.kind, e.line, e.column),
        (lab::LabErrorKind::Syntax, 1, 2)
    );
    let e = lab::assemble_str(
        "c.lab",
        "#if 0\n#else\n#error stop here\n#endif\n",
        &lab::MemLoader::new(),
        &Default::default(),
    )
    .unwrap_err();
    assert_eq!((e.kind, e.line), (lab::LabErrorKind::User, 3));
}

#[test]
fn disassembly_reads_like_sonys_and_edits_play() {
    let Some(path) = common::corpus_file("HMD", "ANIM/INTERP/INTERP.HMD") else {
        return;
    };
    let data = std::fs::read(&path).unwrap();
    let text = lab::disassemble_bytes(&data).unwrap();
    // INTERP.LAB's own forms: COORDM for Coord_root, macros for types and descriptors, key
    // frames by label.
    assert!(
        text.contains("COORDM(0, 0, 0,\t/* rot */\n\t\t-300, 300, 0);"),
        "{text}"
    );
    assert!(text.contains(
        "DEV_ID(SCE)|CTG(CTG_ANIM)|DRV(CAT_STD|TGT_COORD)|PRIM_TYPE(ROT_XYZ|SI_NONE|RI_NONE|TI_LINEAR);"
    ));
    assert!(text.contains("SEQD(JUMP)|SID_DST(0)|SID_CND(0)|SEQ_IDX(4);"));
    assert!(text.contains("|PARAM_IDX((Key_0000 - ParamSect_0000) / 4);"));
    // LinearKey1 is the first labelled key: (PX1, PY1, PZ1) = (1000, -1000, 0). Edit it.
    let key = "Key_0000:\n\t1000; -1000; 0;\n";
    assert!(text.contains(key), "{text}");
    let edited = text.replacen(key, "Key_0000:\n\t1500; -1000; 0;\n", 1);
    let out = lab::assemble_str(
        "e.lab",
        &edited,
        &lab::MemLoader::new(),
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.len(), data.len());
    let after = trajectory(&out, LINEAR, 400);
    assert!(after.contains(&[1500, -1000, 0]));
    assert!(!trajectory(&data, LINEAR, 400).contains(&[1500, -1000, 0]));
}
