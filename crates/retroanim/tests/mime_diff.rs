//! VDF / NDF (MIMEFILT's MIMe difference files): Sony's TMDVIEW MIME sample read and written
//! back exactly, checked against its base TMD, and played: the base plus key k at weight 4096
//! gives the variant TMD MIMEFILT made key k from.

mod common;

use retroanim::formats::mime::{self, Block, Diff};
use retroanim::formats::tmd::{self, SVector};
use retroanim::{Format, Limits, Severity};

const DIR: &str = "3.6/PSX/SAMPLE/GRAPHICS/TMDVIEW/MIME/";

fn tmd_at(name: &str) -> Option<tmd::Tmd> {
    let p = common::corpus_file("TMD", &format!("{DIR}{name}"))?;
    Some(tmd::read(&std::fs::read(p).unwrap()).unwrap())
}

#[test]
fn the_sample_reads_validates_against_its_tmd_and_writes_back() {
    let Some(base) = tmd_at("MD0.TMD") else {
        return;
    };
    for (kind, format, normals) in [("VDF", Format::Vdf, false), ("NDF", Format::Ndf, true)] {
        for (name, path) in common::corpus_files(kind) {
            let bytes = std::fs::read(&path).unwrap();
            let m = retroanim::read_as(&bytes, Some(format), &Limits::default()).unwrap();
            assert_eq!(m.write().unwrap(), bytes, "{name}");
            let d = mime::read_with(&bytes, format, &Limits::default()).unwrap();
            assert_eq!(d.blocks.len(), 4, "{name}");
            let issues = mime::validate(&d, Some(&base), normals);
            assert!(issues.is_empty(), "{name}: {issues:?}");
        }
    }
}

#[test]
fn each_key_at_full_weight_plays_as_its_variant_tmd() {
    let Some(base) = tmd_at("MD0.TMD") else {
        return;
    };
    let Some((_, path)) = common::corpus_files("VDF").into_iter().next() else {
        return;
    };
    let d = mime::read_with(
        &std::fs::read(path).unwrap(),
        Format::Vdf,
        &Limits::default(),
    )
    .unwrap();
    let verts: Vec<Vec<SVector>> = base.objects.iter().map(|o| o.vertices.clone()).collect();
    for k in 0..4 {
        let Some(variant) = tmd_at(&format!("MD{}.TMD", k + 1)) else {
            return;
        };
        let mut w = vec![0; 4];
        w[k] = 4096;
        let played = mime::play(&d, &verts, &w);
        let xyz = |v: &SVector| [v.x, v.y, v.z];
        let got: Vec<[i16; 3]> = played[0].iter().map(xyz).collect();
        let want: Vec<[i16; 3]> = variant.objects[0].vertices.iter().map(xyz).collect();
        assert_eq!(got, want, "key {k} at weight 4096 is MD{}.TMD", k + 1);
    }
}

#[test]
fn playback_is_the_gtes_arithmetic() {
    let d = Diff {
        blocks: vec![Block {
            object: 0,
            offset: 1,
            differences: vec![SVector {
                x: 100,
                y: -100,
                z: 32767,
                pad: 0,
            }],
        }],
        trailing: vec![],
    };
    let base = vec![vec![
        SVector::default(),
        SVector {
            x: 10,
            y: 10,
            z: 32000,
            pad: 5,
        },
    ]];
    // Half weight: (100 × 2048) >> 12 = 50; (−100 × 2048) >> 12 = −50 (an arithmetic shift).
    let p = mime::play(&d, &base, &[2048]);
    assert_eq!([p[0][1].x, p[0][1].y], [60, -40]);
    // The sum wraps as a halfword store does; the pad is untouched; vertex 0 is outside the run.
    assert_eq!(p[0][1].z, 32000i16.wrapping_add(16383));
    assert_eq!(p[0][1].pad, 5);
    assert_eq!(p[0][0], SVector::default());
    // −1 × 1 >> 12 is −1 (floor), not 0.
    let d1 = Diff {
        blocks: vec![Block {
            object: 0,
            offset: 0,
            differences: vec![SVector {
                x: -1,
                y: 1,
                z: 0,
                pad: 0,
            }],
        }],
        trailing: vec![],
    };
    let p = mime::play(&d1, &[vec![SVector::default()]], &[1]);
    assert_eq!([p[0][0].x, p[0][0].y], [-1, 0]);
    // Weight 0 skips the block, as the sample's `if (mime[i] != 0)` does.
    assert_eq!(mime::play(&d, &base, &[0]), base);
}

#[test]
fn ranges_past_the_base_and_damaged_files_are_named() {
    let Some(base) = tmd_at("MD0.TMD") else {
        return;
    };
    let n = base.objects[0].vertices.len() as u32;
    let d = Diff {
        blocks: vec![
            Block {
                object: 0,
                offset: n - 1,
                differences: vec![SVector::default(); 2],
            },
            Block {
                object: 3,
                offset: 0,
                differences: vec![],
            },
        ],
        trailing: vec![],
    };
    let issues = mime::validate(&d, Some(&base), false);
    let range = issues
        .iter()
        .find(|i| i.code == "vertex-range")
        .expect("vertex-range");
    assert_eq!((range.severity, range.offset), (Severity::Error, 8));
    let obj = issues
        .iter()
        .find(|i| i.code == "object-range")
        .expect("object-range");
    assert_eq!(obj.offset, 4 + 12 + 16);
    // A total past the end: the total field is blamed.
    let mut b = mime::write(&d).unwrap();
    b[12..16].copy_from_slice(&1000u32.to_le_bytes());
    match mime::read_with(&b, Format::Vdf, &Limits::default()) {
        Err(retroanim::Error::Malformed { offset: 12, .. }) => {}
        other => panic!("{other:?}"),
    }
}
