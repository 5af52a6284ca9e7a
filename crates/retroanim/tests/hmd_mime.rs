//! HMD MIMe playback: every MIMe kind from hand-built bytes (joint RPY, joint axes, vertex,
//! normal, and their resets), and the corpus MIMe samples at sampled frames. Expected values
//! are computed here in floating point from the decoded DIFF data and the weights with the
//! formula of File Formats pp. 2-118..2-124 (original + Σ_k weight_k · difference_k / 4096),
//! not by the player; tolerances are the console's integer rounding.

mod common;

use retroanim::formats::hmd::{self, *};

use common::hmd_asm::{assemble, cs, h, It, It::*};

// ----------------------------------------------------------------- hand-built files

const T0: [i32; 3] = [10, 20, 30];

/// One GsCOORDUNIT: flg, matrix (rows, pad, translation), workm, rot, super.
fn coord_unit(m: [[i16; 3]; 3], rot: [i16; 3]) -> Vec<It> {
    let hw = |a: i16, b: i16| W(h(a as u16, b as u16));
    let mut v = vec![
        W(0),
        hw(m[0][0], m[0][1]),
        hw(m[0][2], m[1][0]),
        hw(m[1][1], m[1][2]),
        hw(m[2][0], m[2][1]),
        hw(m[2][2], 0),
    ];
    v.extend(T0.map(|t| W(t as u32)));
    v.extend((0..8).map(|_| W(0)));
    v.extend([hw(rot[0], rot[1]), hw(rot[2], 0), W(0)]);
    v
}

/// Joint DIFF records: key 0 (dtp 3), key 2 (dtp 1: its translation must be ignored).
const JOINT_KEYS: [([i16; 3], u16, [i32; 3]); 2] = [
    ([100, -200, 300], 3, [1000, 0, -500]),
    ([0, 400, 0], 1, [7777, 7777, 7777]),
];
/// Weights of keys 0, 1 (no record: dflags bit 1 clear) and 2.
const WEIGHTS: [i32; 3] = [2048, 9999, 1024];

/// A joint MIMe file: coordinate 0 with matrix `m0` / angles `rot0`, the MIMe primitive
/// (`code`) in PRE-PROCESS, its reset (when `reset`) in POST-PROCESS.
fn joint_file(code: u32, m0: [[i16; 3]; 3], rot0: [i16; 3], reset: bool) -> Hmd {
    let hw = |a: i16, b: i16| W(h(a as u16, b as u16));
    let mut v = vec![
        W(0x50),
        W(0),
        Ptr("phs"),
        W(3),
        Ptr("pre"),
        W(0),
        Ptr("post"),
        Label("coords"),
        W(1),
    ];
    v.extend(coord_unit(m0, rot0));
    v.extend([
        Label("phs"),
        W(3),
        Label("h_mime"),
        W(5),
        M("coords"),
        M("pr"),
        W(3),
        W(0),
        M("diff"),
        Label("h_rst"),
        W(3),
        M("coords"),
        W(0),
        if reset { M("diff") } else { W(0) },
        Label("h_none"),
        W(1),
        W(0),
        Label("pre"),
        W(0xFFFF_FFFF),
        Ptr("h_mime"),
        W(0x8000_0001),
        W(code),
        cs(2, 1),
        W(0),
        Label("post"),
        W(0xFFFF_FFFF),
        if reset { Ptr("h_rst") } else { Ptr("h_none") },
        W(0x8000_0001),
        W(if reset { code | 8 } else { 0x0900_0000 }),
        cs(2, 1),
        W(0),
        Label("pr"),
    ]);
    v.extend(WEIGHTS.map(|w| W(w as u32)));
    v.extend([Label("diff"), W(h(0, 2)), W(0b101)]);
    for (r, dtp, t) in JOINT_KEYS {
        v.extend([hw(r[0], r[1]), hw(r[2], dtp as i16)]);
        v.extend(t.map(|x| W(x as u32)));
    }
    // Reset save area: RPY 5 words, axes 8 words (initial values undefined: zero).
    let save = if code & 1 == 1 { 5 } else { 8 };
    v.extend((0..save).map(|_| W(0)));
    hmd::read(&assemble(&v)).unwrap()
}

const IDENTITY: [[i16; 3]; 3] = [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096]];

fn rot(axis: usize, a: f64) -> [[f64; 3]; 3] {
    let (s, c) = a.sin_cos();
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

fn mul(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut o = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            o[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    o
}

fn turn(a: f64) -> f64 {
    a / 4096.0 * std::f64::consts::TAU
}

/// `RotMatrix` in floating point: Rx · Ry · Rz, angles in 4096ths of a turn.
fn rpy_matrix(r: [f64; 3]) -> [[f64; 3]; 3] {
    mul(
        mul(rot(0, turn(r[0])), rot(1, turn(r[1]))),
        rot(2, turn(r[2])),
    )
}

/// The joint-axes driver's rotation (File Formats: rotation-axes interpolation; the sign
/// convention is the driver's `check_z`: `c·I + (1 − c)·a·aᵀ + s·K` with
/// `K = [[0, az, −ay], [−az, 0, ax], [ay, −ax, 0]]`), angle `|v|` in 4096ths of a turn.
fn axes_matrix(v: [f64; 3]) -> [[f64; 3]; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let a = v.map(|x| x / len);
    let (s, c) = turn(len).sin_cos();
    let k = [[0.0, a[2], -a[1]], [-a[2], 0.0, a[0]], [a[1], -a[0], 0.0]];
    let mut m = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = (1.0 - c) * a[i] * a[j] + s * k[i][j] + if i == j { c } else { 0.0 };
        }
    }
    m
}

fn assert_matrix(got: &[[i16; 3]; 3], want: [[f64; 3]; 3], tol: f64, what: &str) {
    for i in 0..3 {
        for j in 0..3 {
            let w = want[i][j] * 4096.0;
            assert!(
                (got[i][j] as f64 - w).abs() <= tol,
                "{what}: m[{i}][{j}] = {} want {w:.1} (got {got:?})",
                got[i][j]
            );
        }
    }
}

/// Σ_k w_k · d_k / 4096 over the records (rotation; translation only where dtp bit 1 is set).
fn weighted() -> ([f64; 3], [f64; 3]) {
    let keyed = [(WEIGHTS[0], JOINT_KEYS[0]), (WEIGHTS[2], JOINT_KEYS[1])];
    let mut r = [0.0; 3];
    let mut t = [0.0; 3];
    for (w, (dr, dtp, dt)) in keyed {
        for i in 0..3 {
            if dtp & 1 != 0 {
                r[i] += w as f64 * dr[i] as f64 / 4096.0;
            }
            if dtp & 2 != 0 {
                t[i] += w as f64 * dt[i] as f64 / 4096.0;
            }
        }
    }
    (r, t)
}

fn frames(m: &Hmd, n: usize) -> Vec<Frame> {
    let mut p = Player::new(m, &PlayOptions::default());
    (0..n)
        .map(|_| {
            p.step().unwrap();
            p.frame()
        })
        .collect()
}

#[test]
fn joint_rpy_mime_adds_weighted_angles_and_translation() {
    let rot0 = [0, 512, 0];
    let m = joint_file(0x0401_0011, IDENTITY, rot0, true);
    let f = frames(&m, 3);
    let (dr, dt) = weighted();
    let want_rot = [0, 1, 2].map(|i| rot0[i] as f64 + dr[i]);
    for (n, fr) in f.iter().enumerate() {
        let c = &fr.coordinates[0];
        assert_eq!(fr.mime[0].weights, WEIGHTS.to_vec());
        for i in 0..3 {
            assert!(
                (c.rot[i] as f64 - want_rot[i]).abs() < 1.0,
                "frame {n}: rot {:?} want {want_rot:?}",
                c.rot
            );
            // The key-2 translation (dtp bit 1 clear) is not applied.
            assert!((c.local.t[i] as f64 - (T0[i] as f64 + dt[i])).abs() < 1.0);
        }
        assert_matrix(&c.local.m, rpy_matrix(want_rot), 4.0, "rpy matrix");
    }
    // With the reset in POST-PROCESS every frame starts from the original again.
    assert_eq!(f[0].coordinates, f[2].coordinates);
}

#[test]
fn without_reset_joint_mime_accumulates_every_update() {
    let m = joint_file(0x0401_0011, IDENTITY, [0; 3], false);
    let f = frames(&m, 3);
    let (dr, dt) = weighted();
    for (n, fr) in f.iter().enumerate() {
        let k = (n + 1) as f64;
        let c = &fr.coordinates[0];
        for i in 0..3 {
            assert!(
                (c.rot[i] as f64 - k * dr[i]).abs() < k,
                "frame {n}: {:?}",
                c.rot
            );
            assert!((c.local.t[i] as f64 - (T0[i] as f64 + k * dt[i])).abs() < k);
        }
    }
}

#[test]
fn rpy_reset_restores_angles_but_keeps_the_matrix_until_the_next_rotation() {
    let m = joint_file(0x0401_0011, IDENTITY, [0; 3], true);
    let prim = m
        .primitives()
        .find(|(_, p)| p.types.iter().any(|t| t.type_code == 0x0401_0011))
        .unwrap()
        .0;
    let mut p = Player::new(&m, &PlayOptions::default());
    p.step().unwrap();
    let moved = p.frame().coordinates[0].clone();
    assert!(p.set_mime_weights(prim, &[0, 0, 0]));
    p.step().unwrap();
    let c = &p.frame().coordinates[0];
    // RstJntRPY put back the angles and translation; the matrix stays as the MIMe left it
    // (GsU_04010019 does not call RotMatrix).
    assert_eq!(c.rot, [0, 0, 0]);
    assert_eq!(c.local.t, T0);
    assert_eq!(c.local.m, moved.local.m);
    assert_ne!(c.local.m, IDENTITY);
}

#[test]
fn joint_axes_mime_rotates_about_the_weighted_axis() {
    // Coordinate 0 turned 90° about Z: the MIMe rotation multiplies on the right.
    let m0 = [[0, -4096, 0], [4096, 0, 0], [0, 0, 4096]];
    for reset in [true, false] {
        let m = joint_file(0x0401_0010, m0, [0, 0, 1024], reset);
        let f = frames(&m, 2);
        let (dr, dt) = weighted();
        let m0f = m0.map(|r| r.map(|x| x as f64 / 4096.0));
        let want = mul(m0f, axes_matrix(dr));
        let c = &f[0].coordinates[0];
        // The driver truncates the angle to whole 4096ths of a turn (≤ 1 unit: 6.3/4096 in the
        // matrix) and normalises the axis through an 8-bit InvSquareRoot table.
        assert_matrix(&c.local.m, want, 12.0, "axes matrix");
        for i in 0..3 {
            assert!((c.local.t[i] as f64 - (T0[i] as f64 + dt[i])).abs() < 1.0);
        }
        // Angles untouched by axes MIMe.
        assert_eq!(c.rot, [0, 0, 1024]);
        let c1 = &f[1].coordinates[0];
        if reset {
            assert_eq!(c1, c, "reset: every frame the same");
        } else {
            let twice = mul(want, axes_matrix(dr));
            assert_matrix(&c1.local.m, twice, 24.0, "axes accumulated");
        }
    }
}

/// Vertices and normals of the vertex/normal file.
const VERTS: [[i16; 3]; 4] = [[0, 0, 0], [1000, 0, 0], [0, 1000, 0], [0, 0, 1000]];
const NORMS: [[i16; 3]; 4] = [[4096, 0, 0], [0, 4096, 0], [0, 0, 4096], [0, -4096, 0]];
/// Per key (dflags 0b11): vstart and deltas.
const VKEYS: [(u32, &[[i16; 3]]); 2] = [(1, &[[100, -50, 25], [-7, 8, 9]]), (2, &[[0, 0, -300]])];
const NKEYS: [(u32, &[[i16; 3]]); 2] = [(0, &[[-400, 300, 0]]), (3, &[[0, 2000, 100]])];
const VN_WEIGHTS: [i32; 2] = [3000, -1500];

/// Vertex and normal MIMe in PRE-PROCESS, their resets (when `reset`) in POST-PROCESS.
fn vn_file(reset: bool) -> Hmd {
    let hw = |a: i16, b: i16| W(h(a as u16, b as u16));
    let mut v = vec![
        W(0x50),
        W(0),
        Ptr("phs"),
        W(3),
        Ptr("pre"),
        W(0),
        Ptr("post"),
        Label("phs"),
        W(3),
        Label("h_vn"),
        W(7),
        M("pr"),
        W(2),
        W(0),
        M("diff"),
        M("orgs"),
        M("verts"),
        M("norms"),
        Label("h_rst"),
        W(5),
        W(0),
        // Without resets nothing uses this header: no pointers (a section's role comes from
        // the primitives that name it).
        if reset { M("diff") } else { W(0) },
        if reset { M("orgs") } else { W(0) },
        if reset { M("verts") } else { W(0) },
        if reset { M("norms") } else { W(0) },
        Label("h_none"),
        W(1),
        W(0),
        Label("pre"),
        W(0xFFFF_FFFF),
        Ptr("h_vn"),
        W(0x8000_0002),
        W(0x0401_0020),
        cs(2, 1),
        W(0),
        W(0x0401_0021),
        cs(2, 1),
        W(20),
        Label("post"),
        W(0xFFFF_FFFF),
        if reset { Ptr("h_rst") } else { Ptr("h_none") },
        W(0x8000_0002),
        W(if reset { 0x0401_0028 } else { 0x0900_0000 }),
        cs(2, 1),
        W(40),
        W(if reset { 0x0401_0029 } else { 0x0900_0000 }),
        cs(2, 1),
        W(44),
        Label("pr"),
    ];
    v.extend(VN_WEIGHTS.map(|w| W(w as u32)));
    // DIFF section: vertex block at 0, normal block at 20, reset blocks at 40 and 44.
    v.push(Label("diff"));
    let block = |keys: [(u32, &[[i16; 3]]); 2], changed_at: u32, v: &mut Vec<It>| {
        let start = v.len();
        v.extend([W(h(1, 2)), W(0b11)]);
        let mut pos = 2 + 2 + 1;
        for (_, d) in keys {
            v.push(W(pos));
            pos += 2 + 2 * d.len() as u32;
        }
        v.push(W(changed_at));
        for (vstart, d) in keys {
            v.extend([W(vstart), W(h(0, d.len() as u16))]);
            for x in d {
                v.extend([hw(x[0], x[1]), hw(x[2], 0)]);
            }
        }
        v.len() - start
    };
    let n = block(VKEYS, 43, &mut v);
    v.extend((n..20).map(|_| W(0)));
    let n = block(NKEYS, 47, &mut v);
    v.extend((n..20).map(|_| W(0)));
    // RstVN blocks: one record each (vertices 1..3 at ORGSVN 0; normals 0..3 at ORGSVN 3).
    v.extend([W(h(0, 1)), W(1), W(0), W(h(0, 3))]);
    v.extend([W(h(0, 1)), W(0), W(3), W(h(0, 4))]);
    v.push(Label("orgs"));
    v.extend((0..14).map(|_| W(0)));
    for (label, vecs) in [("verts", VERTS), ("norms", NORMS)] {
        v.push(Label(label));
        for x in vecs {
            v.extend([hw(x[0], x[1]), hw(x[2], 0)]);
        }
    }
    hmd::read(&assemble(&v)).unwrap()
}

fn section(m: &Hmd, role: SectionRole) -> u32 {
    m.regions
        .iter()
        .find_map(|r| match &r.body {
            RegionBody::Section(s) if s.role == role => Some(r.offset),
            _ => None,
        })
        .unwrap()
}

/// original + Σ_k w_k · d_k / 4096.
fn expected_vn(orig: [[i16; 3]; 4], keys: [(u32, &[[i16; 3]]); 2], times: f64) -> Vec<[f64; 3]> {
    let mut out: Vec<[f64; 3]> = orig.iter().map(|v| v.map(|x| x as f64)).collect();
    for (k, (vstart, d)) in keys.iter().enumerate() {
        for (i, x) in d.iter().enumerate() {
            for c in 0..3 {
                out[*vstart as usize + i][c] += times * VN_WEIGHTS[k] as f64 * x[c] as f64 / 4096.0;
            }
        }
    }
    out
}

fn assert_vectors(got: &[[i16; 3]], want: &[[f64; 3]], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        for c in 0..3 {
            assert!(
                (g[c] as f64 - w[c]).abs() <= tol,
                "{what}: {got:?} want {want:?}"
            );
        }
    }
}

#[test]
fn vertex_and_normal_mime_with_and_without_reset() {
    for reset in [true, false] {
        let m = vn_file(reset);
        let (verts, norms) = (
            section(&m, SectionRole::Vertex),
            section(&m, SectionRole::Normal),
        );
        let mut p = Player::new(&m, &PlayOptions::default());
        for n in 1..=3 {
            p.step().unwrap();
            let times = if reset { 1.0 } else { n as f64 };
            let v = p.vectors(verts, false).unwrap();
            let nn = p.vectors(norms, true).unwrap();
            // Each key's product is floored once per update: < 1 unit per key and update.
            let tol = 2.0 * times;
            assert_vectors(&v, &expected_vn(VERTS, VKEYS, times), tol, "vertices");
            assert_vectors(&nn, &expected_vn(NORMS, NKEYS, times), tol, "normals");
        }
        if reset {
            // After the update the resets have put the originals back (ORGSVN was filled at
            // start, as GsInitRstVtxMIMe / GsInitRstNrmMIMe do).
            let w = p.section_words(verts).unwrap();
            let back: Vec<[i16; 3]> = w
                .chunks(2)
                .map(|c| [c[0] as i16, (c[0] >> 16) as i16, c[1] as i16])
                .collect();
            assert_eq!(back, VERTS.to_vec());
        }
    }
}

#[test]
fn weights_outside_the_file_come_from_the_application() {
    // The same joint file with MIMEPR pointer 0: no weights until the application sets them.
    let m = joint_file(0x0401_0011, IDENTITY, [0; 3], true);
    // Header word 1 (MIMEPR) of the first primitive header becomes a plain 0.
    let mut m2 = m.clone();
    for r in &mut m2.regions {
        if let RegionBody::PrimitiveHeaders(hs) = &mut r.body {
            hs[0].words[1] = HeaderEntry::Value(0);
        }
    }
    let prim = m2.blocks[0];
    let mut p = Player::new(&m2, &PlayOptions::default());
    p.step().unwrap();
    assert!(p.frame().mime[0].weights.is_empty());
    assert_eq!(p.frame().coordinates[0].local.m, IDENTITY);
    assert!(p.set_mime_weights(prim, &WEIGHTS));
    p.step().unwrap();
    assert_eq!(p.frame().mime[0].weights, WEIGHTS.to_vec());
    assert_ne!(p.frame().coordinates[0].local.m, IDENTITY);
}

// ----------------------------------------------------------------- corpus samples

/// A (non-reset) MIMe primitive as the test reads it from the model.
struct Prim {
    at: u32,
    kind: MimeKind,
    weights: Option<u32>,
    num: usize,
    diff: u32,
    diffs: Vec<u32>,
    vn: Option<u32>,
}

fn mime_prims(m: &Hmd) -> Vec<Prim> {
    let headers = m.headers();
    let mut out = Vec::new();
    for (at, p) in m.primitives() {
        let Some(h) = headers.get(&p.header) else {
            continue;
        };
        let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
        let val = |i: usize| match h.words.get(i) {
            Some(HeaderEntry::Value(v)) => *v as usize,
            _ => 0,
        };
        for t in &p.types {
            let Some((kind, false)) = MimeKind::from_code(t.type_code) else {
                continue;
            };
            let TypeData::Offsets(diffs) = &t.data else {
                continue;
            };
            let joint = matches!(kind, MimeKind::JointAxes | MimeKind::JointRpy);
            let (weights, num, diff, vn) = if joint {
                (ptr(1), val(2), ptr(4), None)
            } else {
                let vn = if kind == MimeKind::Vertex {
                    ptr(5)
                } else {
                    ptr(6)
                };
                (ptr(0), val(1), ptr(3), vn)
            };
            let Some(diff) = diff else { continue };
            out.push(Prim {
                at,
                kind,
                weights,
                num: num.min(32),
                diff,
                diffs: diffs.clone(),
                vn,
            });
        }
    }
    out
}

fn diff_blocks<'a>(m: &'a Hmd, p: &Prim) -> Vec<&'a MimeDiffItem> {
    let Some(SectionData::MimeDiff(items)) = m.section_at(p.diff).map(|s| &s.data) else {
        return Vec::new();
    };
    p.diffs
        .iter()
        .filter_map(|o| items.iter().find(|i| i.index() == Some(*o)))
        .collect()
}

/// (key, record) pairs in dflags order, keys below `num`.
fn keyed<T>(dflags: u32, num: usize, recs: &[T]) -> Vec<(usize, &T)> {
    (0..num)
        .filter(|k| dflags & (1 << k) != 0)
        .zip(recs)
        .collect()
}

/// The weights an application might drive: a different sine per key.
fn app_weights(frame: usize, num: usize) -> Vec<i32> {
    (0..num)
        .map(|k| ((frame as f64 * 0.1 + k as f64).sin() * 4096.0) as i32)
        .collect()
}

#[test]
fn corpus_mime_samples_match_the_formula_at_sampled_frames() {
    let files = common::corpus_files("HMD");
    let mut checked_vectors = 0;
    let mut checked_joints = 0;
    let mut checked_weights = 0;
    for (name, path) in &files {
        if !(name.contains("/MIME/")
            || name.contains("/COMB/")
            || (name.contains("PYRAMID") && name.contains("MIME")))
        {
            continue;
        }
        let m = hmd::read(&std::fs::read(path).unwrap()).unwrap();
        let prims = mime_prims(&m);
        if prims.is_empty() {
            continue;
        }
        let coords = m.coordinates().unwrap_or(&[]).to_vec();
        let mut p = Player::new(&m, &PlayOptions::default());
        let mut seen_weights = std::collections::BTreeSet::new();
        for f in 0..100 {
            for x in &prims {
                if x.weights.is_none() {
                    assert!(p.set_mime_weights(x.at, &app_weights(f, x.num)));
                }
            }
            p.step().unwrap();
            let frame = p.frame();
            // Weights: as MIMEPR holds them (an animation may write it), or as given.
            let weights: Vec<Vec<i32>> = prims
                .iter()
                .map(|x| match x.weights {
                    Some(at) => p.section_words(at).unwrap()[..x.num]
                        .iter()
                        .map(|&w| w as i32)
                        .collect(),
                    None => app_weights(f, x.num),
                })
                .collect();
            for (x, w) in prims.iter().zip(&weights) {
                let reported = frame.mime.iter().find(|s| s.primitive == x.at).unwrap();
                assert_eq!(&reported.weights, w, "{name} frame {f}");
                seen_weights.insert((x.at, w.clone()));
            }
            if ![0, 1, 17, 50, 99].contains(&f) {
                continue;
            }
            // Vertex / normal MIMe: original + Σ w·d / 4096 (primitives naming the same
            // section with the same DIFF blocks and weights count once: TWINP draws one
            // section twice).
            let mut want: std::collections::BTreeMap<u32, (Vec<[f64; 3]>, Vec<f64>)> =
                Default::default();
            let mut counted = std::collections::BTreeSet::new();
            for (x, w) in prims.iter().zip(&weights) {
                let Some(vn) = x.vn else { continue };
                if !counted.insert((vn, x.diff, x.diffs.clone(), w.clone())) {
                    continue;
                }
                let e = want.entry(vn).or_insert_with(|| {
                    let Some(SectionData::Vectors { vectors, .. }) =
                        m.section_at(vn).map(|s| &s.data)
                    else {
                        panic!("{name}: vector section {vn}");
                    };
                    (
                        vectors.iter().map(|v| v.v.map(|c| c as f64)).collect(),
                        vec![0.0; vectors.len()],
                    )
                });
                for item in diff_blocks(&m, x) {
                    let MimeDiffItem::Vertex(v) = item else {
                        continue;
                    };
                    for (k, d) in keyed(v.dflags, x.num, &v.keys) {
                        if w[k] == 0 {
                            continue;
                        }
                        for (i, delta) in d.deltas.iter().enumerate() {
                            let at = d.vstart as usize + i;
                            if at >= e.0.len() {
                                // Past the section (TUTO/PYRAMID/VTXMIME): the console and
                                // the player write on into the section that follows; this
                                // check covers the MIMe's own section (the spill is checked
                                // by the CLI test `play_mime_weights_deform_as_the_weights_say`).
                                break;
                            }
                            for c in 0..3 {
                                e.0[at][c] += w[k] as f64 * delta.v[c] as f64 / 4096.0;
                            }
                            // One floor per key: < 1 unit each.
                            e.1[at] += 1.0;
                        }
                    }
                }
            }
            for (vn, (want, tol)) in &want {
                let got = p.vectors(*vn, false).unwrap();
                for (i, (g, w)) in got.iter().zip(want).enumerate() {
                    for c in 0..3 {
                        assert!(
                            (g[c] as f64 - w[c]).abs() <= tol[i] + 0.5,
                            "{name} frame {f} section {vn} vector {i}: {g:?} want {w:?}"
                        );
                    }
                }
                checked_vectors += 1;
            }
            // Joint MIMe on coordinates no animation moves and one DIFF block moves.
            if !m.animations().is_empty() {
                continue;
            }
            let mut blocks_per_coord = std::collections::BTreeMap::new();
            for x in &prims {
                for item in diff_blocks(&m, x) {
                    if let MimeDiffItem::Joint(j) = item {
                        *blocks_per_coord.entry(j.coord_id as usize).or_insert(0) += 1;
                    }
                }
            }
            for (x, w) in prims.iter().zip(&weights) {
                for item in diff_blocks(&m, x) {
                    let MimeDiffItem::Joint(j) = item else {
                        continue;
                    };
                    let c = j.coord_id as usize;
                    if blocks_per_coord[&c] != 1 || c >= coords.len() {
                        continue;
                    }
                    let (mut dr, mut dt) = ([0.0; 3], [0.0; 3]);
                    for (k, d) in keyed(j.dflags, x.num, &j.differences) {
                        for i in 0..3 {
                            if d.dtp & 1 != 0 {
                                dr[i] += w[k] as f64 * d.rotation[i] as f64 / 4096.0;
                            }
                            if d.dtp & 2 != 0 {
                                dt[i] += w[k] as f64 * d.translation[i] as f64 / 4096.0;
                            }
                        }
                    }
                    let unit = &coords[c];
                    let got = &frame.coordinates[c];
                    let what = format!("{name} frame {f} coordinate {c}");
                    for (i, d) in dt.iter().enumerate() {
                        let t = unit.matrix.t[i] as f64 + d;
                        assert!((got.local.t[i] as f64 - t).abs() < 1.0, "{what}: t");
                    }
                    let m0 = unit.matrix.m.map(|r| r.map(|v| v as f64 / 4096.0));
                    match x.kind {
                        MimeKind::JointRpy => {
                            let r = [0, 1, 2].map(|i| unit.rot.v[i] as f64 + dr[i]);
                            for (g, w) in got.rot.iter().zip(&r) {
                                assert!((*g as f64 - w).abs() < 1.0, "{what}: rot");
                            }
                            if dr.iter().any(|v| v.abs() >= 1.0) {
                                assert_matrix(&got.local.m, rpy_matrix(r), 10.0, &what);
                            }
                        }
                        _ => {
                            let len = dr.iter().map(|v| v * v).sum::<f64>().sqrt();
                            // Below the driver's threshold (or one unit) nothing turns. The
                            // console normalises through an 8-bit InvSquareRoot table: the
                            // axis length and the angle are each off by up to 1/128, and
                            // the angle is truncated to whole units (6.3/4096 each).
                            let want = if len >= 4.0 {
                                mul(m0, axes_matrix(dr))
                            } else {
                                m0
                            };
                            assert_matrix(
                                &got.local.m,
                                want,
                                16.0 + 2.0 * len.min(4.0) + 0.08 * len,
                                &format!("{what} Σv {dr:?} |Σv| {len:.1} weights {w:?}"),
                            );
                        }
                    }
                    checked_joints += 1;
                }
            }
        }
        // Weights driven by animation change over the frames.
        for x in &prims {
            if x.weights.is_some() && !m.animations().is_empty() {
                let n = seen_weights.iter().filter(|(at, _)| *at == x.at).count();
                assert!(n > 1, "{name}: MIMEPR never changed");
                checked_weights += 1;
            }
        }
    }
    if !files.is_empty() {
        eprintln!("{checked_vectors} vector sections, {checked_joints} joints, {checked_weights} animated MIMEPR");
        assert!(checked_vectors > 0 && checked_joints > 0 && checked_weights > 0);
    }
}
