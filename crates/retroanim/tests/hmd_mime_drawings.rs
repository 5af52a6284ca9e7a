//! Vertex MIMe morph targets go to the meshes whose polygons see them: `SCEI/MIME/TWINP/`
//! draws one model twice (block 1: MIMe 0, polygons, reset 0; block 2: MIMe 1, polygons,
//! reset 1), so each twin moves with its own MIMe only, as `play` shows.

mod common;

use retroanim::formats::hmd::*;
use retroanim::scene::{Mesh, Scene};

/// The MIMe primitives a mesh's targets come from (`mime P key K` / `normal mime P key K`).
fn target_primitives(mesh: &Mesh) -> std::collections::BTreeSet<u32> {
    mesh.target_names
        .iter()
        .map(|n| {
            let p = n.trim_start_matches("normal ").trim_start_matches("mime ");
            p.split(' ').next().unwrap().parse().unwrap()
        })
        .collect()
}

/// The mesh node `coord C` draws.
fn mesh_of(scene: &Scene, c: usize) -> &Mesh {
    &scene.meshes[scene.nodes[c].mesh.expect("the twin's mesh")]
}

#[test]
fn each_twin_gets_only_its_own_mime_and_moves_as_play_shows() {
    let Some(m) = common::corpus_hmd("TWINP/TWINP.HMD") else {
        return;
    };
    let raw = SceneOptions {
        axes: Axes::Raw,
        scale: 1.0,
        ..SceneOptions::default()
    };
    let scene = m.to_scene(&raw).unwrap();
    let p = Player::new(&m, &PlayOptions::default());
    let targets = p.vertex_mime_deltas();
    assert_eq!(targets.len(), 2, "two vertex MIMe primitives");
    let (mime0, mime1) = (targets[0].primitive, targets[1].primitive);
    assert_ne!(mime0, mime1);
    // What each block's polygons see.
    let seen = p.mime_seen();
    let sees = |b: usize| -> Vec<u32> {
        seen[b]
            .get(&targets[0].section)
            .unwrap()
            .iter()
            .copied()
            .collect()
    };
    assert_eq!(sees(1), [mime0], "twin 0 sees MIMe 0");
    assert_eq!(sees(2), [mime1], "twin 1 sees MIMe 1");
    let twin0 = mesh_of(&scene, 0);
    let twin1 = mesh_of(&scene, 1);
    assert_eq!(target_primitives(twin0), [mime0].into());
    assert_eq!(target_primitives(twin1), [mime1].into());
    // Vertex and normal keys of one primitive, 4 keys each.
    assert_eq!(twin0.target_names.len(), 8, "{:?}", twin0.target_names);
    assert_eq!(twin1.target_names.len(), 8, "{:?}", twin1.target_names);

    // Key k of MIMe 1 at full weight: the console draws twin 1 deformed (the last drawing of
    // the section, so `play` shows it) and twin 0 at rest (drawn before MIMe 1 runs). The
    // glTF with the same weights: twin 1's rest corners plus its target are the player's
    // vertices; twin 0 has no target MIMe 1 could drive.
    let prim = &twin1.primitives[0];
    let sources: Vec<usize> = {
        // Corner → vertex index: the rest positions are the file's vertices.
        let rest = p.vectors(targets[1].section, false).unwrap();
        prim.positions
            .iter()
            .map(|c| {
                rest.iter()
                    .position(|v| v.map(f32::from) == *c)
                    .expect("a corner at a vertex")
            })
            .collect()
    };
    for k in 0..4 {
        let mut weights = vec![0; 4];
        weights[k] = 4096;
        let mut q = Player::new(&m, &PlayOptions::default());
        assert!(q.set_mime_weights(mime1, &weights));
        q.step().unwrap();
        let shown = q.vectors(targets[1].section, false).unwrap();
        let t = twin1
            .target_names
            .iter()
            .position(|n| *n == format!("mime {mime1} key {k}"))
            .unwrap();
        let mut moved = 0;
        for (c, &v) in sources.iter().enumerate() {
            let d = prim.targets[t].positions[c];
            let glb = [0, 1, 2].map(|i| prim.positions[c][i] + d[i]);
            assert_eq!(glb, shown[v].map(f32::from), "key {k} corner {c}");
            moved += usize::from(d != [0.0; 3]);
        }
        assert!(moved > 0, "key {k} moves twin 1");
    }
}
