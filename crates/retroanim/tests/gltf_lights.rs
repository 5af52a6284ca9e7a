//! glTF `KHR_lights_punctual` → scene lights: a hand-written file's directional, point and spot
//! lights arrive with their colour, intensity, range and cone on their nodes, what the scene
//! cannot hold is noted, a bad light index is a clean error, and a scene's lights survive our
//! exporter and importer unchanged.

mod common;

use retroanim::export::gltf::write_glb;
use retroanim::import::gltf;
use retroanim::scene::{Light, LightKind, Node, Scene, Transform};
use retroanim::{Error, Limits};

/// A glTF with four lights on four nodes (the fourth of a type glTF does not define).
fn lit() -> serde_json::Value {
    serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"name": "sun", "type": "directional", "color": [1.0, 0.5, 0.25], "intensity": 3.0},
            {"name": "bulb", "type": "point", "intensity": 40.0, "range": 12.5},
            {"name": "torch", "type": "spot", "color": [0.0, 1.0, 0.0],
             "spot": {"innerConeAngle": 0.25, "outerConeAngle": 0.5}},
            {"name": "odd", "type": "area", "extensions": {"EXT_whatever": {}}}
        ]}},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": [
            {"name": "sun", "rotation": [-0.70710677, 0.0, 0.0, 0.70710677],
             "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "bulb", "translation": [0.0, 2.0, 0.0],
             "extensions": {"KHR_lights_punctual": {"light": 1}}},
            {"name": "torch", "extensions": {"KHR_lights_punctual": {"light": 2}}},
            {"name": "odd", "extensions": {"KHR_lights_punctual": {"light": 3}}}
        ]
    })
}

#[test]
fn hand_written_lights_arrive_on_their_nodes() {
    let got = gltf::read(&serde_json::to_vec(&lit()).unwrap(), &Limits::default()).unwrap();
    let s = &got.scene;
    assert_eq!(s.lights.len(), 4);
    let on: Vec<Option<usize>> = s.nodes.iter().map(|n| n.light).collect();
    assert_eq!(on, vec![Some(0), Some(1), Some(2), Some(3)]);
    assert_eq!(
        s.lights[0],
        Light {
            name: "sun".into(),
            kind: LightKind::Directional,
            color: [1.0, 0.5, 0.25],
            intensity: 3.0,
            range: None,
        }
    );
    // glTF's defaults: white, intensity 1.
    assert_eq!(
        s.lights[1],
        Light {
            name: "bulb".into(),
            kind: LightKind::Point,
            color: [1.0; 3],
            intensity: 40.0,
            range: Some(12.5),
        }
    );
    assert_eq!(
        s.lights[2].kind,
        LightKind::Spot {
            inner_cone_angle: 0.25,
            outer_cone_angle: 0.5
        }
    );
    assert_eq!(s.lights[2].color, [0.0, 1.0, 0.0]);
    // What the scene cannot hold is named with its count, not dropped silently.
    let notes = got.notes.join("\n");
    assert!(notes.contains("1 × lights of an unknown type"), "{notes}");
    assert!(
        notes.contains("1 × extensions on KHR_lights_punctual lights"),
        "{notes}"
    );
    assert!(!notes.contains("not read yet"), "{notes}");
    assert_eq!(got.notes.len(), 2, "{notes}");
}

#[test]
fn a_light_index_past_the_list_is_a_clean_error() {
    let mut j = lit();
    j["nodes"][2]["extensions"]["KHR_lights_punctual"]["light"] = 9.into();
    let err = gltf::read(&serde_json::to_vec(&j).unwrap(), &Limits::default()).unwrap_err();
    assert!(matches!(err, Error::Malformed { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("nodes[2]") && text.contains("9 does not exist"),
        "{text}"
    );
}

#[test]
fn scene_lights_survive_export_and_import() {
    let light = |name: &str, kind, color, intensity, range| Light {
        name: name.into(),
        kind,
        color,
        intensity,
        range,
    };
    let node = |name: &str, light, t: [f32; 3]| Node {
        light: Some(light),
        transform: Transform::translation(t),
        ..Node::new(name)
    };
    let scene = Scene {
        lights: vec![
            light("key", LightKind::Directional, [1.0, 0.9, 0.8], 2.0, None),
            light("fill", LightKind::Point, [0.2, 0.4, 1.0], 15.0, Some(7.0)),
            light(
                "rim",
                LightKind::Spot {
                    inner_cone_angle: 0.1,
                    outer_cone_angle: 0.7,
                },
                [1.0, 1.0, 0.0],
                100.0,
                Some(20.0),
            ),
        ],
        nodes: vec![
            node("a", 0, [0.0, 1.0, 0.0]),
            node("b", 1, [1.0, 0.0, 0.0]),
            node("c", 2, [0.0, 0.0, 1.0]),
        ],
        ..Scene::default()
    };
    let bytes = write_glb(&scene).unwrap();
    let back = gltf::read(&bytes, &Limits::default()).unwrap();
    assert!(back.notes.is_empty(), "{:?}", back.notes);
    assert_eq!(back.scene.lights, scene.lights);
    let lights: Vec<(String, Option<usize>)> = back
        .scene
        .nodes
        .iter()
        .map(|n| (n.name.clone(), n.light))
        .collect();
    assert_eq!(
        lights,
        vec![
            ("a".to_string(), Some(0)),
            ("b".to_string(), Some(1)),
            ("c".to_string(), Some(2))
        ]
    );
}
