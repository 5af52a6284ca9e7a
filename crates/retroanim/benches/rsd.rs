//! Reading + writing a 10,000-polygon RSD set (RSD, PLY, MAT, GRP text), the target
//! being ≤ 20 ms. The set is generated: a grid of quads with float vertices, normals, a MAT
//! line per polygon (alternating types) and a GRP of ten groups.
//!
//! `cargo bench -p retroanim --bench rsd`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::Criterion;
use retroanim::formats::rsd;

fn set() -> [String; 4] {
    let side = 100usize; // 100 × 100 quads = 10,000 polygons
    let nv = (side + 1) * (side + 1);
    let mut ply = format!(
        "@PLY970401\n# Number of items\n{nv} {} {}\n# Vertex\n",
        side * side,
        side * side
    );
    for y in 0..=side {
        for x in 0..=side {
            let _ = writeln!(
                ply,
                " {:.6} {:.6} {:.6}",
                x as f64 * 10.5,
                (x * y) as f64 * 0.01,
                y as f64 * -10.25
            );
        }
    }
    ply.push_str("# Normal\n");
    for i in 0..side * side {
        let a = i as f64 * 0.001;
        let _ = writeln!(ply, "{:.6E} {:.6E} {:.6E}", a.sin(), a.cos(), 0.0);
    }
    ply.push_str("# Polygon\n");
    for y in 0..side {
        for x in 0..side {
            let v = y * (side + 1) + x;
            let n = y * side + x;
            let _ = writeln!(
                ply,
                "1 {} {} {} {} {n} {n} {n} {n}",
                v,
                v + 1,
                v + side + 1,
                v + side + 2
            );
        }
    }
    let mut mat = format!("@MAT970401\n{}\n", side * side);
    for i in 0..side * side {
        if i % 2 == 0 {
            let _ = writeln!(mat, "{i} 0 G C {} 128 64", i % 256);
        } else {
            let _ = writeln!(mat, "{i} 0 F T 0 0 0 31 0 0 31 31 31");
        }
    }
    let mut grp = "@GRP970401\n10\n".to_string();
    for g in 0..10 {
        let _ = writeln!(grp, "part{g} 1 1000\n{}-{}", g * 1000, g * 1000 + 999);
    }
    let r = "@RSD970401\nPLY=b.ply\nMAT=b.mat\nGRP=b.grp\nNTEX=1\nTEX[0]=b.tim\n".to_string();
    [r, ply, mat, grp]
}

fn bench(c: &mut Criterion) {
    let [r, ply, mat, grp] = set();
    let total = r.len() + ply.len() + mat.len() + grp.len();
    eprintln!("RSD set of 10,000 polygons: {total} bytes of text");
    c.bench_function("rsd read+write 10k polygons", |b| {
        b.iter(|| {
            let r = rsd::read_rsd("b.rsd", black_box(r.as_bytes())).unwrap();
            let p = rsd::read_ply("b.ply", black_box(ply.as_bytes())).unwrap();
            let m = rsd::read_mat("b.mat", black_box(mat.as_bytes())).unwrap();
            let g = rsd::read_grp("b.grp", black_box(grp.as_bytes())).unwrap();
            let out = [
                rsd::write_rsd(&r).unwrap(),
                rsd::write_ply(&p).unwrap(),
                rsd::write_mat(&m).unwrap(),
                rsd::write_grp(&g).unwrap(),
            ];
            assert_eq!(out[1].len(), ply.len());
            black_box(out)
        })
    });
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
