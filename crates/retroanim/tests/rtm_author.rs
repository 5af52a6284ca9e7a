//! glTF → RTM on skeletons built here: what the matrices are relative to (`--rest`: the bones'
//! world matrices, or world × inverse bind matrix, the rest world standing in for a bone in no
//! skin), which pose each default picks, and the phase window (`--start`, `--duration`, keys
//! outside it). The expected matrices are worked out in the test from the skeleton's numbers.

use retroanim::convert::{self, Options};
use retroanim::formats::rtm::{self, AuthorOptions, Rest, Rtm};
use retroanim::scene::{Animation, Channel, Interpolation, Node, Scene, Skin, Track, Transform};
use retroanim::{Error, Format};

/// A column-major 4×4.
type M = [f64; 16];

fn mul(a: &M, b: &M) -> M {
    let mut o = [0.0; 16];
    for j in 0..4 {
        for i in 0..4 {
            o[4 * j + i] = (0..4).map(|k| a[4 * k + i] * b[4 * j + k]).sum();
        }
    }
    o
}

fn translation(t: [f64; 3]) -> M {
    let mut m = [0.0; 16];
    for i in 0..4 {
        m[5 * i] = 1.0;
    }
    m[12..15].copy_from_slice(&t);
    m
}

/// A turn of `deg` degrees about +y.
fn about_y(deg: f64) -> M {
    let (s, c) = deg.to_radians().sin_cos();
    let mut m = translation([0.0; 3]);
    m[0] = c;
    m[2] = -s;
    m[8] = s;
    m[10] = c;
    m
}

fn quat_y(deg: f32) -> [f32; 4] {
    let (s, c) = (deg.to_radians() / 2.0).sin_cos();
    [0.0, s, 0.0, c]
}

/// The RTM's 12 numbers of a glTF-space matrix: x negated on both sides (docs/rtm.md).
fn rtm_numbers(m: &M) -> [f32; 12] {
    let sign = [-1.0, 1.0, 1.0];
    let mut out = [0.0; 12];
    for j in 0..3 {
        for i in 0..3 {
            out[3 * j + i] = (m[4 * j + i] * sign[i] * sign[j]) as f32;
        }
        out[9 + j] = (m[12 + j] * sign[j]) as f32;
    }
    out
}

fn trs(t: [f32; 3]) -> Transform {
    Transform::Trs {
        translation: t,
        rotation: [0.0, 0.0, 0.0, 1.0],
        scale: [1.0; 3],
    }
}

/// `Rig` (at x = 2) holds `upper` (1 m up), which holds `lower` (1 m further up). `upper`
/// turns about +y: 0° at t = 0.5 s, 90° at 1.5 s; both LINEAR. The skin lists `lower` only,
/// bound 1 m above its rest place (its inverse bind matrix is T(−2, −3, 0)).
fn skeleton(times: &[f32], degrees: &[f32]) -> Scene {
    let node = |name: &str, parent, t| Node {
        name: name.into(),
        parent,
        transform: trs(t),
        ..Default::default()
    };
    let ibm = translation([-2.0, -3.0, 0.0]).map(|v| v as f32);
    Scene {
        nodes: vec![
            node("Rig", None, [2.0, 0.0, 0.0]),
            node("upper", Some(0), [0.0, 1.0, 0.0]),
            node("lower", Some(1), [0.0, 1.0, 0.0]),
        ],
        skins: vec![Skin {
            name: "skin".into(),
            joints: vec![2],
            inverse_bind_matrices: vec![ibm],
        }],
        animations: vec![Animation {
            name: "turn".into(),
            channels: vec![Channel {
                node: 1,
                interpolation: Interpolation::Linear,
                times: times.to_vec(),
                track: Track::Rotation(degrees.iter().map(|&d| quat_y(d)).collect()),
            }],
            extras: Default::default(),
        }],
        ..Default::default()
    }
}

fn close(got: &[f32; 12], want: &[f32; 12], what: &str) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-5, "{what}: got {got:?}, want {want:?}");
    }
}

/// `upper`'s and `lower`'s world matrices with `upper` turned `deg` degrees.
fn worlds(deg: f64) -> (M, M) {
    let upper = mul(&translation([2.0, 1.0, 0.0]), &about_y(deg));
    let lower = mul(&upper, &translation([0.0, 1.0, 0.0]));
    (upper, lower)
}

#[test]
fn rest_origin_takes_world_matrices_and_bind_takes_them_relative_to_the_bind_pose() {
    let scene = skeleton(&[0.5, 1.5], &[0.0, 90.0]);
    let opts = |rest| AuthorOptions {
        start: Some(0.5),
        rest: Some(rest),
        ..Default::default()
    };
    let (origin, _) = rtm::from_scene(&scene, &opts(Rest::Origin)).unwrap();
    let (bind, notes) = rtm::from_scene(&scene, &opts(Rest::Bind)).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let names: Vec<&str> = bind.bones.iter().map(|b| b.name.as_str()).collect();
    // The moved node only (no recorded bone list).
    assert_eq!(names, ["upper"]);
    for (f, deg) in [(0, 0.0), (1, 90.0)] {
        let (upper, _) = worlds(deg);
        close(
            &origin.frames[f].transforms[0].matrix,
            &rtm_numbers(&upper),
            "origin",
        );
        // upper is in no skin: relative to its rest world T(2, 1, 0).
        let rel = mul(&upper, &translation([-2.0, -1.0, 0.0]));
        close(
            &bind.frames[f].transforms[0].matrix,
            &rtm_numbers(&rel),
            "bind",
        );
    }
    // At rest (frame 0) a bound bone's matrix is the identity.
    close(
        &bind.frames[0].transforms[0].matrix,
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "rest",
    );
}

#[test]
fn a_joint_of_a_skin_takes_its_inverse_bind_matrix_and_the_default_follows_extras() {
    let mut scene = skeleton(&[0.0, 1.0], &[0.0, 90.0]);
    scene.extras = serde_json::json!({ "rtm": { "bones": ["upper", "lower"] } });
    let (recorded, _) = rtm::from_scene(&scene, &AuthorOptions::default()).unwrap();
    scene.extras = serde_json::json!({});
    // Without the record: the moved node only, relative to the bind pose.
    let (made, _) = rtm::from_scene(&scene, &AuthorOptions::default()).unwrap();
    scene.extras = serde_json::json!({ "rtm": { "bones": ["lower"] } });
    let (bound, _) = rtm::from_scene(
        &scene,
        &AuthorOptions {
            rest: Some(Rest::Bind),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(made.bones.len(), 1);
    for (f, deg) in [(0, 0.0), (1, 90.0)] {
        let (upper, lower) = worlds(deg);
        // The record (a glTF exported from an RTM) means origin.
        close(
            &recorded.frames[f].transforms[1].matrix,
            &rtm_numbers(&lower),
            "recorded",
        );
        let rel = mul(&upper, &translation([-2.0, -1.0, 0.0]));
        close(
            &made.frames[f].transforms[0].matrix,
            &rtm_numbers(&rel),
            "made",
        );
        // lower is a joint: its inverse bind matrix T(−2, −3, 0), not its rest T(2, 2, 0)⁻¹.
        let rel = mul(&lower, &translation([-2.0, -3.0, 0.0]));
        close(
            &bound.frames[f].transforms[0].matrix,
            &rtm_numbers(&rel),
            "joint",
        );
    }
}

#[test]
fn start_and_duration_set_the_phases_and_keys_outside_are_left_out() {
    let scene = skeleton(&[0.5, 1.0, 1.5, 2.5], &[0.0, 30.0, 60.0, 120.0]);
    let (m, notes) = rtm::from_scene(
        &scene,
        &AuthorOptions {
            start: Some(0.5),
            duration: Some(1.5),
            rest: Some(Rest::Origin),
            ..Default::default()
        },
    )
    .unwrap();
    let phases: Vec<f32> = m.frames.iter().map(|f| f.phase).collect();
    // 0.5, 1.0, 1.5 s at their phases; 2.5 s is past the end: the pose at 2.0 s instead.
    assert_eq!(phases.len(), 4, "{phases:?}");
    for (got, want) in phases.iter().zip([0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]) {
        assert!((got - want).abs() < 1e-6, "{phases:?}");
    }
    assert!(notes.iter().any(|n| n.code == "keys-outside"), "{notes:?}");
    // At 2.0 s upper has turned halfway from 60° to 120°.
    close(
        &m.frames[3].transforms[0].matrix,
        &rtm_numbers(&worlds(90.0).0),
        "end",
    );
    // Without a duration: from start to the last key, each key its own frame.
    let (m, notes) = rtm::from_scene(
        &scene,
        &AuthorOptions {
            start: Some(0.5),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let phases: Vec<f32> = m.frames.iter().map(|f| f.phase).collect();
    assert_eq!(phases, [0.0, 0.25, 0.5, 1.0]);
}

#[test]
fn the_conversion_takes_start_and_rest_and_refuses_a_start_that_is_no_number() {
    let scene = skeleton(&[0.5, 1.5], &[0.0, 90.0]);
    let glb = retroanim::export::gltf::write_glb(&scene).unwrap();
    let mut opts = Options::default();
    opts.timing.start = Some(0.5);
    opts.rtm.rest = Some(Rest::Origin);
    let done = convert::convert_bytes(&glb, None, Format::Rtm, &opts).unwrap();
    let Rtm::Mlod(m) = rtm::read(&done.bytes).unwrap() else {
        panic!("an RTM_0101")
    };
    assert_eq!(
        m.frames.iter().map(|f| f.phase).collect::<Vec<_>>(),
        [0.0, 1.0]
    );
    close(
        &m.frames[1].transforms[0].matrix,
        &rtm_numbers(&worlds(90.0).0),
        "converted",
    );
    opts.timing.start = Some(f32::NAN);
    match convert::convert_bytes(&glb, None, Format::Rtm, &opts) {
        Err(Error::Option { option, .. }) => assert_eq!(option, "start"),
        other => panic!("{:?}", other.map(|c| c.format)),
    }
}
