//! Authoring for the console, checked by round trips through glTF: every janken TOD with its
//! TE.TMD goes TOD + TMD → GLB → TOD + TMD through `retroanim::convert`, and the TOD player
//! puts every object of the new files where it put the original's (world matrices within one
//! unit at every frame), showing the same model; corpus TMDs (textured ones with their TIMs)
//! come back with the same triangles, positions and textures.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use retroanim::convert::{self, Options, TodInput};
use retroanim::formats::tmd::scene::{tmd_scene, PsxOptions};
use retroanim::formats::{tim, tmd, tod};
use retroanim::{Format, Model};

use common::janken;

fn model_of(bytes: &[u8]) -> Model {
    retroanim::read_any(bytes).unwrap()
}

use common::mat_distance as distance;

#[test]
fn janken_round_trips_through_glb_with_the_same_world_matrices() {
    let Some((model, tods)) = janken() else {
        return;
    };
    assert_eq!(tods.len(), 9);
    let appear = tods[0].1.clone();
    let triangles =
        |m: &tmd::Tmd| -> Vec<usize> { m.meshes().iter().map(|x| x.triangles.len()).collect() };
    let old_tris = triangles(&model);
    let (mut compared, mut worst) = (0usize, 0i64);
    for (name, anim) in &tods {
        let after = if name.ends_with("APPEAR.TOD") {
            vec![]
        } else {
            vec![appear.clone()]
        };
        // TOD + TMD → GLB.
        let to_glb = Options {
            tod: TodInput {
                tmd: Some(model.clone()),
                after: after.clone(),
                ..TodInput::default()
            },
            ..Options::default()
        };
        let glb = convert::convert(&Model::Tod(anim.clone()), Format::Glb, &to_glb).unwrap();
        // GLB → TOD + TMD, at the original's resolution.
        let out = common::glb_to_tod(&glb.bytes, anim.header.resolution);
        assert!(out.notes.is_empty(), "{name}: {:?}", out.notes);
        let Model::Tod(new_tod) = model_of(&out.bytes) else {
            panic!("{name}: not a TOD")
        };
        let extra = out.extra.iter().find(|e| e.format == Format::Tmd).unwrap();
        let Model::Tmd(new_tmd) = model_of(&extra.bytes) else {
            panic!("{name}: not a TMD")
        };
        assert!(
            tod::validate(&new_tod).is_empty(),
            "{name}: {:?}",
            tod::validate(&new_tod)
        );
        assert!(tmd::validate(&new_tmd).is_empty(), "{name}");
        let new_tris = triangles(&new_tmd);

        // Play both.
        let mut before: Option<tod::Player> = None;
        for a in &after {
            let mut p = tod::Player::new(a, Some(&model));
            p.seek(u32::MAX);
            before = Some(p);
        }
        let old_player = match before {
            None => tod::Player::new(anim, Some(&model)),
            Some(p) => p.then(anim),
        };
        let old: Vec<tod::Pose> = old_player.collect();
        let new: Vec<tod::Pose> = tod::Player::new(&new_tod, Some(&new_tmd)).collect();
        let first = old[0].frame;
        let by_tick: BTreeMap<u32, &tod::Pose> = new.iter().map(|p| (p.frame, p)).collect();
        // Objects in order of first appearance are the new objects 1, 2, ...
        let new_id = common::tod_ids_by_appearance(&old);
        let last_new = new.last().unwrap().frame;
        assert_eq!(
            last_new,
            old.last().unwrap().frame - first,
            "{name}: the new TOD lasts as long"
        );
        for p in &old {
            let q = by_tick[&(p.frame - first).min(last_new)];
            // Two slots may share an ID (JAANKEN creates objects APPEAR made): packets reach
            // the first, as the player's search does, and that one is the object.
            let mut done = BTreeSet::new();
            for o in p.objects.iter().filter(|o| done.insert(o.id)) {
                let n = q
                    .objects
                    .iter()
                    .find(|x| x.id == new_id[&o.id])
                    .unwrap_or_else(|| panic!("{name}: object {} missing", o.id));
                let d = distance(&o.world, &n.world);
                worst = worst.max(d);
                assert!(
                    d <= 1,
                    "{name} tick {} object {}: {:?} vs {:?}",
                    p.frame,
                    o.id,
                    o.world,
                    n.world
                );
                let shows = |x: &tod::ObjectPose| x.visible && x.model.is_some();
                assert_eq!(
                    shows(o),
                    shows(n),
                    "{name} tick {} object {}",
                    p.frame,
                    o.id
                );
                if let (true, Some(a), Some(b)) = (shows(o), o.model, n.model) {
                    assert_eq!(
                        old_tris[a], new_tris[b],
                        "{name} object {}: the same model",
                        o.id
                    );
                }
                compared += 1;
            }
        }
    }
    eprintln!("{compared} object poses compared, worst difference {worst}");
    assert!(compared > 5000, "{compared} object poses compared");
}

/// Each object's triangles as sorted corner positions: what the console draws.
fn shapes(m: &tmd::Tmd) -> Vec<Vec<[[i16; 3]; 3]>> {
    m.meshes()
        .iter()
        .map(|x| {
            let mut t: Vec<[[i16; 3]; 3]> = x
                .triangles
                .iter()
                .map(|t| {
                    // The same triangle whichever corner comes first.
                    let c = t.corners.map(|c| c.position);
                    let k = (0..3).min_by_key(|&k| c[k]).unwrap();
                    [c[k], c[(k + 1) % 3], c[(k + 2) % 3]]
                })
                .collect();
            t.sort();
            t
        })
        .filter(|t| !t.is_empty())
        .collect()
}

#[test]
fn corpus_tmds_round_trip_through_glb() {
    let files = common::unique_files("TMD");
    if files.is_empty() {
        return;
    }
    let mut checked = 0;
    let mut quads = (0usize, 0usize);
    for (name, data) in &files {
        let Ok(model) = tmd::read(data) else { continue };
        if model.meshes().iter().all(|m| m.triangles.is_empty()) {
            continue;
        }
        let glb =
            convert::convert(&Model::Tmd(model.clone()), Format::Glb, &Options::default()).unwrap();
        let out = convert::convert_bytes(&glb.bytes, None, Format::Tmd, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let Model::Tmd(back) = model_of(&out.bytes) else {
            panic!("{name}: not a TMD")
        };
        assert!(
            tmd::validate(&back).is_empty(),
            "{name}: {:?}",
            tmd::validate(&back)
        );
        assert_eq!(shapes(&back), shapes(&model), "{name}: triangles");
        let count_quads = |m: &tmd::Tmd| {
            m.objects
                .iter()
                .flat_map(|o| &o.primitives)
                .filter(|p| p.mode >> 5 == 1 && p.mode & 0x08 != 0)
                .count()
        };
        quads.0 += count_quads(&model);
        quads.1 += count_quads(&back);
        checked += 1;
    }
    eprintln!("{checked} models; quadrilaterals {} → {}", quads.0, quads.1);
    assert!(checked >= 30, "{checked} models");
    assert!(
        quads.1 * 10 >= quads.0 * 9,
        "quadrilaterals {} → {}",
        quads.0,
        quads.1
    );
}

#[test]
fn textured_corpus_models_come_back_with_their_textures() {
    // Models beside TIMs in the same folder, whose polygons find a TIM.
    let tims: Vec<(std::path::PathBuf, tim::Tim)> = common::corpus_files("TIM")
        .into_iter()
        .filter_map(|(_, p)| Some((p.clone(), tim::read(&std::fs::read(&p).ok()?).ok()?)))
        .collect();
    let mut checked = 0;
    let mut seen = BTreeSet::new();
    for (name, path) in common::corpus_files("TMD") {
        let data = std::fs::read(&path).unwrap();
        if !seen.insert(data.clone()) {
            continue;
        }
        let Ok(model) = tmd::read(&data) else {
            continue;
        };
        let here: Vec<tim::Tim> = tims
            .iter()
            .filter(|(p, _)| p.parent() == path.parent())
            .map(|(_, t)| t.clone())
            .collect();
        if here.is_empty() {
            continue;
        }
        let opts = PsxOptions {
            tims: here.clone(),
            ..PsxOptions::default()
        };
        let scene = tmd_scene(&model, &opts).unwrap();
        let textured = |s: &retroanim::scene::Scene| {
            s.meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .filter(|p| p.material.is_some_and(|k| s.materials[k].texture.is_some()))
                .map(|p| p.positions.len() / 3)
                .sum::<usize>()
        };
        let want = textured(&scene);
        if want == 0
            || scene.textures.len() > 12
            || scene
                .textures
                .iter()
                .any(|t| t.width > 256 || t.height > 256)
        {
            continue;
        }
        let glb_opts = Options {
            textures: convert::Textures {
                tims: here,
                ..Default::default()
            },
            ..Options::default()
        };
        let glb = convert::convert(&Model::Tmd(model.clone()), Format::Glb, &glb_opts).unwrap();
        let out =
            convert::convert_bytes(&glb.bytes, None, Format::Tmd, &Options::default()).unwrap();
        let Model::Tmd(back) = model_of(&out.bytes) else {
            panic!("{name}: not a TMD")
        };
        let new_tims: Vec<tim::Tim> = out
            .extra
            .iter()
            .map(|e| {
                assert_eq!(e.format, Format::Tim);
                assert!(e.suffix.ends_with(".tim"));
                tim::read(&e.bytes).unwrap()
            })
            .collect();
        assert_eq!(
            new_tims.len(),
            scene.textures.len(),
            "{name}: one TIM per texture"
        );
        let again = tmd_scene(
            &back,
            &PsxOptions {
                tims: new_tims,
                ..PsxOptions::default()
            },
        )
        .unwrap();
        assert_eq!(textured(&again), want, "{name}: textured triangles");
        checked += 1;
    }
    eprintln!("{checked} textured models");
    if !common::corpus_files("TMD").is_empty() {
        assert!(checked >= 3, "{checked} textured models compared");
    }
}

/// The README's walk-through: the project's own sample to GLB and back plays the same.
#[test]
fn shipped_sample_round_trips_through_glb() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let anim = tod::read(&std::fs::read(dir.join("swing.tod")).unwrap()).unwrap();
    let model = tmd::read(&std::fs::read(dir.join("link.tmd")).unwrap()).unwrap();
    let glb = common::tod_to_glb(&anim, &model, &[], Default::default());
    let back = Options {
        tod: TodInput {
            resolution: Some(anim.header.resolution.max(1)),
            ..TodInput::default()
        },
        ..Options::default()
    };
    let out = convert::convert_bytes(&glb.bytes, None, Format::Tod, &back).unwrap();
    assert!(out.notes.is_empty(), "{:?}", out.notes);
    let Model::Tod(new_tod) = model_of(&out.bytes) else {
        panic!("not a TOD")
    };
    let Model::Tmd(new_tmd) = model_of(&out.extra[0].bytes) else {
        panic!("not a TMD")
    };
    let old: Vec<tod::Pose> = tod::Player::new(&anim, Some(&model)).collect();
    let new: Vec<tod::Pose> = tod::Player::new(&new_tod, Some(&new_tmd)).collect();
    assert_eq!(old.len(), new.len());
    // Objects keep their IDs and lives (the export's extras, docs/extras.md).
    let mut ids: Vec<u16> = Vec::new();
    for p in &old {
        for o in &p.objects {
            if !ids.contains(&o.id) {
                ids.push(o.id);
            }
        }
    }
    let mut compared = 0;
    for (p, q) in old.iter().zip(&new) {
        let shows = |x: &tod::ObjectPose| x.visible && x.model.is_some();
        for id in &ids {
            let n = q.objects.iter().find(|x| x.id == *id);
            match (p.objects.iter().find(|o| o.id == *id), n) {
                (Some(o), Some(n)) => {
                    assert!(distance(&o.world, &n.world) <= 1, "tick {}", p.frame);
                    assert_eq!(shows(o), shows(n), "tick {} object {id}", p.frame);
                    compared += 1;
                }
                (None, None) => {}
                (o, n) => panic!(
                    "tick {} object {id}: alive {} in the original, {} after",
                    p.frame,
                    o.is_some(),
                    n.is_some()
                ),
            }
        }
    }
    assert!(compared >= old.len(), "{compared}");
}

/// Blender's exporter rounds key times to the nearest f32, so about half of its keys sit a
/// fraction of an ULP after their frame (retroanim's own exports round down). A STEP key
/// written for tick k must still show at tick k in the TOD, not one tick late.
#[test]
fn step_keys_rounded_to_nearest_show_at_their_tick() {
    use retroanim::formats::tod::author::{author, TodAuthorOptions};
    use retroanim::scene::{Animation, Channel, Interpolation, Node, Scene, Track};
    let ticks = 120u64;
    let times: Vec<f32> = (0..ticks).map(|k| (k as f64 / 60.0) as f32).collect();
    let after = times
        .iter()
        .enumerate()
        .filter(|&(k, &t)| t as f64 * 60.0 > k as f64)
        .count();
    assert!(after > 10, "the test needs keys rounded up ({after})");
    let scene = Scene {
        nodes: vec![Node::new("mover")],
        animations: vec![Animation {
            name: "blender".into(),
            channels: vec![Channel {
                node: 0,
                interpolation: Interpolation::Step,
                times,
                // x = k console units at tick k (1/4096 m per unit).
                track: Track::Translation(
                    (0..ticks).map(|k| [k as f32 / 4096.0, 0.0, 0.0]).collect(),
                ),
            }],
            ..Animation::default()
        }],
        ..Scene::default()
    };
    let out = author(&scene, &[None], &TodAuthorOptions::default()).unwrap();
    let xs: Vec<(u32, i32)> = tod::Player::new(&out.tod, None)
        .map(|p| (p.frame, p.objects[0].world.t[0]))
        .collect();
    assert_eq!(xs.len() as u64, ticks);
    for (tick, x) in xs {
        assert_eq!(x, tick as i32, "tick {tick} shows x = {x}");
    }
}
