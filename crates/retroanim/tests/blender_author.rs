//! A scene authored in Blender and exported by Blender's own glTF exporter
//! (`tests/blender/author_scene.py`: a three-mesh hierarchy with rotation and translation keys,
//! a textured mesh, a mesh with two keyed shape keys) goes to the console's formats through
//! `retroanim::convert`, and what the console player shows is what Blender showed:
//! - GLB → TOD (+ its TMD and TIM): the TOD player's world matrix of every object equals
//!   Blender's evaluated world matrix at every frame, within one console unit in translation and
//!   5/4096 in each rotation element (a TOD angle is 1/4096 of a turn); the texture, decoded
//!   back, is the image quantised to the TIM's depth, within a 15-bit step of Blender's.
//! - GLB → HMD: the HMD player's world matrix of every coordinate (one per glTF node) equals
//!   Blender's at every frame within the same bounds, the hand's shape keys play as vertex MIMe
//!   whose vertices follow Blender's evaluated ones (bounds derived in the test), and the HMD
//!   holds the texture as an image primitive whose TIM decodes as the TOD's does.

mod common;

use retroanim::convert::{self, Options};
use retroanim::formats::tim::{self, DecodeOptions, Depth, EncodeOptions, Rgba, Stp};
use retroanim::formats::{hmd, tmd, tod};
use retroanim::{Format, Model};
use serde_json::Value;

/// Blender's scene: the GLB its exporter wrote and what it evaluated (see the script).
fn blender_scene(dir: &std::path::Path) -> Option<(Vec<u8>, Value)> {
    let glb = dir.join("scene.glb");
    let expected = dir.join("expected.json");
    if !common::run_blender_check("author_scene.py", &[&glb, &expected]) {
        return None;
    }
    let exp = serde_json::from_slice(&std::fs::read(&expected).unwrap()).unwrap();
    Some((std::fs::read(&glb).unwrap(), exp))
}

/// A glTF-space 4×4 world matrix (rows, metres) in the console's axes and units: the TMD
/// bridge's axes (the console's are glTF's turned 180° about X) and 4096 units per metre.
fn console_world(rows: &Value) -> ([[f64; 3]; 3], [f64; 3]) {
    let g = |i: usize, j: usize| rows[i][j].as_f64().unwrap();
    let flip = [1.0, -1.0, -1.0];
    let mut m = [[0.0; 3]; 3];
    let mut t = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = flip[i] * g(i, j) * flip[j] * 4096.0;
        }
        t[i] = flip[i] * g(i, 3) * 4096.0;
    }
    (m, t)
}

fn model_of(bytes: &[u8]) -> Model {
    retroanim::read_any(bytes).unwrap()
}

/// The largest translation (units) and rotation-element (1/4096) differences between console
/// world matrices and Blender's evaluated ones, over the poses compared.
#[derive(Default)]
struct Worst {
    t: f64,
    r: f64,
    compared: usize,
}

impl Worst {
    fn add(&mut self, m: &[[i16; 3]; 3], t: &[i32; 3], rows: &Value) {
        let (want_m, want_t) = console_world(rows);
        for i in 0..3 {
            self.t = self.t.max((t[i] as f64 - want_t[i]).abs());
            for (got, want) in m[i].iter().zip(want_m[i]) {
                self.r = self.r.max((*got as f64 - want).abs());
            }
        }
        self.compared += 1;
    }

    /// Prints the result and checks every node of every frame was compared.
    fn report(&self, frames: usize) {
        eprintln!(
            "{} poses: worst translation {:.3} units, rotation {:.2}/4096",
            self.compared, self.t, self.r
        );
        assert_eq!(self.compared, 3 * frames);
    }
}

/// The glTF node names of the GLB, in node order.
fn node_names(glb: &[u8]) -> Vec<String> {
    let imported = retroanim::import::gltf::read(glb, &retroanim::Limits::default()).unwrap();
    imported
        .scene
        .nodes
        .iter()
        .map(|n| n.name.clone())
        .collect()
}

/// The largest distance (console units, per axis) between the `hand` vertices the HMD player
/// shows (its MIMe'd vertex section) and Blender's evaluated `hand_points`, matched
/// nearest-first both ways over every frame Blender evaluated: in the hand's own space
/// (Blender's points through the inverse of Blender's world matrix of the hand) and in the
/// world (the played vertices through the played world matrix); and the largest
/// |x| + |y| + |z| of a played vertex in the hand's space.
fn hand_vertices_off(
    h: &hmd::Hmd,
    names: &[String],
    frames: &[Value],
    last: u64,
) -> (f64, f64, f64) {
    let k = names.iter().position(|n| n == "hand").unwrap();
    let mut player = hmd::Player::new(h, &hmd::PlayOptions::default());
    let mimes = player.vertex_mime_deltas();
    assert_eq!(mimes.len(), 1, "one vertex MIMe: the hand's shape keys");
    let section = mimes[0].section;
    let (mut local, mut world, mut reach) = (0.0f64, 0.0f64, 0.0f64);
    let mut compared = 0;
    let off = |a: &[[f64; 3]], b: &[[f64; 3]]| {
        let near = |p: &[f64; 3], set: &[[f64; 3]]| {
            set.iter()
                .map(|q| (0..3).map(|i| (p[i] - q[i]).abs()).fold(0.0, f64::max))
                .fold(f64::INFINITY, f64::min)
        };
        let one = a.iter().map(|p| near(p, b)).fold(0.0, f64::max);
        one.max(b.iter().map(|p| near(p, a)).fold(0.0, f64::max))
    };
    for frame in 0..=last {
        player.step().unwrap();
        let Some(f) = frames.iter().find(|f| f["frame"].as_u64() == Some(frame)) else {
            continue;
        };
        let w = player.frame().coordinates[k].world;
        let shown: Vec<[i32; 3]> = player
            .vectors(section, false)
            .unwrap()
            .iter()
            .map(|v| v.map(i32::from))
            .collect();
        let got_local: Vec<[f64; 3]> = shown.iter().map(|v| v.map(f64::from)).collect();
        let got_world: Vec<[f64; 3]> = shown
            .iter()
            .map(|v| hmd::apply(&w, *v).map(f64::from))
            .collect();
        let flip = [1.0, -1.0, -1.0];
        let want_world: Vec<[f64; 3]> = f["hand_points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| std::array::from_fn(|i| p[i].as_f64().unwrap() * flip[i] * 4096.0))
            .collect();
        // Blender's hand world is a rotation (no scale keys): its inverse is the transpose.
        let (m, t) = console_world(&f["nodes"]["hand"]);
        let want_local: Vec<[f64; 3]> = want_world
            .iter()
            .map(|p| {
                std::array::from_fn(|j| (0..3).map(|i| m[i][j] / 4096.0 * (p[i] - t[i])).sum())
            })
            .collect();
        local = local.max(off(&got_local, &want_local));
        world = world.max(off(&got_world, &want_world));
        for p in &got_local {
            reach = reach.max(p.iter().map(|x| x.abs()).sum());
        }
        compared += 1;
    }
    assert_eq!(compared, frames.len());
    (local, world, reach)
}

#[test]
fn blender_scene_to_hmd_plays_as_blender_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some((glb, exp)) = blender_scene(dir.path()) else {
        return;
    };
    let out = convert::convert_bytes(&glb, None, Format::Hmd, &Options::default()).unwrap();
    let Model::Hmd(h) = model_of(&out.bytes) else {
        panic!("not an HMD")
    };
    let errors: Vec<_> = hmd::validate(&h)
        .into_iter()
        .filter(|i| i.severity == retroanim::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Coordinate k is node k (hmd::author's numbering).
    let names = node_names(&glb);
    let frames = exp["frames"].as_array().unwrap();
    let last = frames
        .iter()
        .map(|f| f["frame"].as_u64().unwrap())
        .max()
        .unwrap();
    let mut player = hmd::Player::new(&h, &hmd::PlayOptions::default());
    let mut worst = Worst::default();
    for frame in 0..=last {
        player.step().unwrap();
        let shown = player.frame();
        let Some(f) = frames.iter().find(|f| f["frame"].as_u64() == Some(frame)) else {
            continue;
        };
        for (name, rows) in f["nodes"].as_object().unwrap() {
            let k = names.iter().position(|n| n == name).unwrap();
            let w = &shown.coordinates[k].world;
            worst.add(&w.m, &w.t, rows);
        }
    }
    worst.report(frames.len());
    let (worst_t, worst_r) = (worst.t, worst.r);
    // Each key is solved against the console's own parent world (measured 0.81 units and
    // 4.4/4096; 4.7 and 8.1 when each local key was rounded on its own).
    assert!(worst_t <= 1.0, "translation off by {worst_t} units");
    let (local, world, reach) = hand_vertices_off(&h, &names, frames, last);
    eprintln!(
        "hand vertices: worst {local:.3} units from Blender's in the hand's own space, {world:.3} in the world (vertices reach {reach:.0} units, |x|+|y|+|z|)"
    );
    // In the hand's space the shape keys play as vertex MIMe: each weighted key is floored by
    // the driver (`(w·d) >> 12`, up to 1 unit, two keys), the weights rounded to 1/4096 (about
    // 0.2 unit for these differences), base and differences to a unit (0.5 each). Measured
    // 1.35 units.
    assert!(
        local <= 3.0,
        "hand vertices off by {local} units in the hand's space"
    );
    // In the world the coordinate's matrix adds its own error: translation, and each rotation
    // element's error times the vertex's reach. Measured 4.24 units.
    let world_bound = 3.0 + worst_t + worst_r / 4096.0 * reach;
    assert!(
        world <= world_bound,
        "hand vertices off by {world} units in the world (bound {world_bound:.2})"
    );
    assert!(worst_r <= 5.0, "rotation off by {worst_r}/4096");
    // The texture travels as an image primitive: the same TIM the TOD route writes.
    let tims = hmd::image_tims(&h);
    let tod = convert::convert_bytes(&glb, None, Format::Tod, &Options::default()).unwrap();
    let tod_tims: Vec<&[u8]> = tod
        .extra
        .iter()
        .filter(|e| e.format == Format::Tim)
        .map(|e| &e.bytes[..])
        .collect();
    assert_eq!(tims.len(), 1, "one image primitive image");
    let decode = DecodeOptions {
        clut_row: 0,
        stp: Stp::default(),
    };
    assert_eq!(
        tims[0].to_rgba(&decode).unwrap(),
        tim::read(tod_tims[0]).unwrap().to_rgba(&decode).unwrap()
    );
}

#[test]
fn blender_scene_to_tod_plays_as_blender_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some((glb, exp)) = blender_scene(dir.path()) else {
        return;
    };
    let out = convert::convert_bytes(&glb, None, Format::Tod, &Options::default()).unwrap();
    // The TOD holds no shape keys: said, with counts.
    let codes: Vec<&str> = out.notes.iter().map(|n| n.code).collect();
    assert!(
        out.notes.iter().any(|n| n.message.contains("morph")),
        "shape keys left out without a note: {codes:?}"
    );
    let Model::Tod(anim) = model_of(&out.bytes) else {
        panic!("not a TOD")
    };
    assert!(
        tod::validate(&anim).is_empty(),
        "{:?}",
        tod::validate(&anim)
    );
    let tmd_extra = out.extra.iter().find(|e| e.format == Format::Tmd).unwrap();
    let Model::Tmd(model) = model_of(&tmd_extra.bytes) else {
        panic!("not a TMD")
    };
    assert!(tmd::validate(&model).is_empty());

    // Object k is node k − 1 (tod::author's numbering); name each by its glTF node.
    let names = node_names(&glb);
    let frames = exp["frames"].as_array().unwrap();
    let poses: Vec<tod::Pose> = tod::Player::new(&anim, Some(&model)).collect();
    let mut worst = Worst::default();
    for f in frames {
        let tick = f["frame"].as_u64().unwrap() as u32;
        let pose = poses
            .iter()
            .find(|p| p.frame == tick)
            .unwrap_or_else(|| panic!("the TOD has no pose at tick {tick}"));
        for (name, rows) in f["nodes"].as_object().unwrap() {
            let k = names.iter().position(|n| n == name).unwrap();
            let o = pose
                .objects
                .iter()
                .find(|o| o.id as usize == k + 1)
                .unwrap_or_else(|| panic!("tick {tick}: no object for {name}"));
            assert!(o.visible && o.model.is_some(), "tick {tick}: {name} hidden");
            worst.add(&o.world.m, &o.world.t, rows);
        }
    }
    worst.report(frames.len());
    let (worst_t, worst_r) = (worst.t, worst.r);
    assert!(worst_t <= 1.0, "translation off by {worst_t} units");
    // A TOD angle is 1/4096 of a turn: the nearest one leaves a rotation element up to about
    // 3/4096 off; RotMatrix's 12-bit sines and GsGetLw's rounding at each of the three levels
    // add a step or two.
    assert!(worst_r <= 5.0, "rotation off by {worst_r}/4096");

    // The texture: one TIM, decoded back = the image quantised to its depth.
    let tims: Vec<tim::Tim> = out
        .extra
        .iter()
        .filter(|e| e.format == Format::Tim)
        .map(|e| tim::read(&e.bytes).unwrap())
        .collect();
    assert_eq!(tims.len(), 1);
    let t = &tims[0];
    let tex = &exp["texture"];
    let source = Rgba {
        width: tex["width"].as_u64().unwrap() as usize,
        height: tex["height"].as_u64().unwrap() as usize,
        pixels: tex["rgba"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u8)
            .collect(),
    };
    // Six colours: 4 bpp keeps them all.
    assert_eq!(t.depth(), Some(Depth::Clut4));
    let decode = DecodeOptions {
        clut_row: 0,
        stp: Stp::default(),
    };
    let got = t.to_rgba(&decode).unwrap();
    let (quantised, _) = tim::Tim::from_rgba(
        &source,
        &EncodeOptions {
            depth: Depth::Clut4,
            ..EncodeOptions::default()
        },
    )
    .unwrap();
    assert_eq!(got, quantised.to_rgba(&decode).unwrap());
    // …and within the 15-bit colour's step of what Blender had.
    let off = got
        .pixels
        .iter()
        .zip(&source.pixels)
        .map(|(a, b)| (*a as i32 - *b as i32).abs())
        .max()
        .unwrap();
    assert!(off <= 7, "texture off by {off}");
}
