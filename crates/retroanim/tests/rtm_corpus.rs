//! Every corpus RTM: reads, validates clean, writes back byte for byte, exports to a glTF the
//! Khronos validator accepts whose joints sit where the RTM puts its bones at every frame, and
//! comes back from that glTF with the same bones, phases and matrices (within 1e-5).

mod common;

use common::gltf_read::Gltf;
use retroanim::convert::{self, Options};
use retroanim::formats::rtm::{self, Mlod, Rtm};
use retroanim::{Format, Severity};

fn corpus() -> Vec<(String, Vec<u8>)> {
    common::corpus_files("RTM")
        .into_iter()
        .map(|(n, p)| (n, std::fs::read(p).unwrap()))
        .collect()
}

fn mlod(bytes: &[u8]) -> Mlod {
    match rtm::read(bytes).unwrap() {
        Rtm::Mlod(m) => m,
        Rtm::Bmtr(_) => panic!("the corpus RTMs are editable"),
    }
}

#[test]
fn corpus_rtms_read_validate_and_write_back_exactly() {
    let files = corpus();
    for (name, bytes) in &files {
        let model = retroanim::read_any(bytes).unwrap();
        assert_eq!(model.format(), Format::Rtm, "{name}");
        let m = mlod(bytes);
        assert!(m.frames.len() > 1 && m.bones.len() > 1, "{name}");
        assert!(m.frames.iter().all(|f| f.transforms.len() == m.bones.len()));
        let issues = model.validate();
        let bad: Vec<_> = issues
            .iter()
            .filter(|i| i.severity >= Severity::Warning)
            .collect();
        assert!(bad.is_empty(), "{name}: {bad:?}");
        assert_eq!(&rtm::write(&Rtm::Mlod(m.clone())).unwrap(), bytes, "{name}");
        assert_eq!(model.summary()["form"], "RTM_0101", "{name}");
        // The JSON dump brings back the same bytes too.
        let back = retroanim::Model::from_json(model.to_json().unwrap().as_bytes()).unwrap();
        assert_eq!(&back.write().unwrap(), bytes, "{name}: JSON dump");
    }
}

#[test]
fn corpus_rtms_come_back_from_gltf_within_1e5() {
    for (name, bytes) in corpus() {
        let m = mlod(&bytes);
        let model = retroanim::read_any(&bytes).unwrap();
        let glb = convert::convert(&model, Format::Glb, &Options::default()).unwrap();
        assert!(glb.notes.is_empty(), "{name}: {:?}", glb.notes);
        let back =
            convert::convert_bytes(&glb.bytes, None, Format::Rtm, &Options::default()).unwrap();
        let b = mlod(&back.bytes);
        assert_eq!(b.displacement, m.displacement, "{name}");
        assert_eq!(b.bones, m.bones, "{name}");
        assert_eq!(b.frames.len(), m.frames.len(), "{name}");
        let mut worst: f32 = 0.0;
        for (fa, fb) in m.frames.iter().zip(&b.frames) {
            assert!(
                (fa.phase - fb.phase).abs() <= 1e-5,
                "{name}: {} {}",
                fa.phase,
                fb.phase
            );
            for (ta, tb) in fa.transforms.iter().zip(&fb.transforms) {
                assert_eq!(ta.bone, tb.bone);
                for k in 0..12 {
                    worst = worst.max((ta.matrix[k] - tb.matrix[k]).abs());
                }
            }
        }
        assert!(worst <= 1e-5, "{name}: a matrix element moved by {worst}");
    }
}

#[test]
fn corpus_rtm_gltf_joints_sit_where_the_rtm_puts_the_bones() {
    let files = corpus();
    let Some((name, bytes)) = files.first() else {
        return;
    };
    let m = mlod(bytes);
    let model = retroanim::read_any(bytes).unwrap();
    let out = convert::convert(&model, Format::Gltf, &Options::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rtm.gltf");
    std::fs::write(&path, &out.bytes).unwrap();
    common::assert_khronos_clean(&path);
    let g = Gltf::parse(&out.bytes);
    let nodes = g.json["nodes"].as_array().unwrap();
    for f in [0, m.frames.len() / 2, m.frames.len() - 1] {
        let worlds = g.world_matrices(Some((0, f)));
        for (b, bone) in m.bones.iter().enumerate() {
            let node = nodes
                .iter()
                .position(|n| n["name"] == bone.name.as_str())
                .unwrap_or_else(|| panic!("{name}: no node {:?}", bone.name));
            let want = common::rtm_scene_matrix(&m.frames[f].transforms[b].matrix);
            for k in 0..16 {
                assert!(
                    (worlds[node][k] - want[k]).abs() < 1e-5,
                    "{name} frame {f} bone {:?}: element {k} {} vs {}",
                    bone.name,
                    worlds[node][k],
                    want[k]
                );
            }
        }
    }
}

/// The man skeleton's bones in the usual parent order, as a `model.cfg` names them.
const MODEL_CFG: &str = r#"
#include "basicDefines.hpp" // preprocessor lines are skipped
class CfgSkeletons {
    class Default { isDiscrete = 1; skeletonInherit = ""; skeletonBones[] = {}; };
    class TestSpine: Default {
        skeletonInherit = "";
        skeletonBones[] = {
            "Pelvis", "",
            "Spine", "Pelvis", "Spine1", "Spine", "Spine2", "Spine1", "Spine3", "Spine2",
            "Neck", "Spine3", "Neck1", "Neck", "Head", "Neck1"
        };
    };
    class TestMan: TestSpine {
        skeletonInherit = "TestSpine";
        /* the arms hang off the spine */
        skeletonBones[] = {
            "RightShoulder", "Spine3", "RightArm", "RightShoulder", "RightForeArm", "RightArm",
            "RightHand", "RightForeArm", "LeftShoulder", "Spine3", "LeftArm", "LeftShoulder",
            "LeftForeArm", "LeftArm", "LeftHand", "LeftForeArm"
        };
    };
};
class CfgModels { class Default { skeletonName = ""; }; };
"#;

#[test]
fn corpus_rtm_with_a_skeleton_nests_the_joints_and_still_comes_back() {
    let files = corpus();
    let Some((name, bytes)) = files.last() else {
        return;
    };
    let m = mlod(bytes);
    let skeletons = rtm::skeleton::parse_model_cfg(MODEL_CFG).unwrap();
    assert_eq!(skeletons.len(), 3);
    assert_eq!(
        skeletons[2].bones.len(),
        16,
        "TestMan inherits TestSpine's 8 bones"
    );
    let opts = Options {
        rtm: convert::RtmInput {
            skeletons: Some(skeletons),
            p3d: None,
        },
        ..Options::default()
    };
    let model = retroanim::read_any(bytes).unwrap();
    let out = convert::convert(&model, Format::Gltf, &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rtm_skeleton.gltf");
    std::fs::write(&path, &out.bytes).unwrap();
    common::assert_khronos_clean(&path);
    assert!(
        out.notes.iter().any(|n| n.code == "bones-not-in-skeleton"),
        "{name}: the test skeleton names 16 of the bones: {:?}",
        out.notes
    );
    let g = Gltf::parse(&out.bytes);
    let nodes = g.json["nodes"].as_array().unwrap();
    let index = |n: &str| nodes.iter().position(|x| x["name"] == n).unwrap();
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            parent[c.as_u64().unwrap() as usize] = Some(i);
        }
    }
    // The nearest ancestor that is a joint (a sheared bone's outer node is not).
    let joint_parent = |n: &str| -> String {
        let mut p = parent[index(n)];
        while let Some(k) = p {
            let name = nodes[k]["name"].as_str().unwrap();
            if !name.ends_with(" stretch") {
                return name.to_string();
            }
            p = parent[k];
        }
        String::new()
    };
    assert_eq!(joint_parent("LeftShoulder"), "Spine3");
    assert_eq!(joint_parent("LeftHand"), "LeftForeArm");
    assert_eq!(joint_parent("Pelvis"), "rtm");
    assert_eq!(
        joint_parent("Weapon"),
        "rtm",
        "not in the skeleton: under the root"
    );
    let f = m.frames.len() / 3;
    let worlds = g.world_matrices(Some((0, f)));
    let hand = m.bones.iter().position(|b| b.name == "LeftHand").unwrap();
    let want = common::rtm_scene_matrix(&m.frames[f].transforms[hand].matrix);
    for k in 0..16 {
        assert!((worlds[index("LeftHand")][k] - want[k]).abs() < 1e-5);
    }
    let back = convert::convert_bytes(&out.bytes, None, Format::Rtm, &Options::default()).unwrap();
    let b = mlod(&back.bytes);
    for (fa, fb) in m.frames.iter().zip(&b.frames) {
        for (ta, tb) in fa.transforms.iter().zip(&fb.transforms) {
            for k in 0..12 {
                assert!((ta.matrix[k] - tb.matrix[k]).abs() <= 1e-5, "{name}");
            }
        }
    }
}

#[test]
fn corpus_rtm_plays_its_frames_and_interpolates_between_them() {
    let files = corpus();
    let Some((_, bytes)) = files.first() else {
        return;
    };
    let m = mlod(bytes);
    let opts = rtm::PlayOptions::default();
    for f in [0, 7, m.frames.len() - 1] {
        let pose = rtm::pose(&m, m.frames[f].phase, opts).unwrap();
        for (b, t) in m.frames[f].transforms.iter().enumerate() {
            assert_eq!(pose[b], t.matrix, "frame {f} is played as stored");
        }
    }
    let (a, b) = (&m.frames[10], &m.frames[11]);
    let mid = rtm::pose(&m, (a.phase + b.phase) / 2.0, opts).unwrap();
    for (k, pose) in mid.iter().enumerate() {
        for (i, v) in pose.iter().enumerate().skip(9) {
            let want = (a.transforms[k].matrix[i] + b.transforms[k].matrix[i]) / 2.0;
            assert!(
                (v - want).abs() < 1e-5,
                "positions are interpolated linearly"
            );
        }
    }
}
