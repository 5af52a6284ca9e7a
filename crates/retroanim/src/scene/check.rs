//! Consistency checks of a [`Scene`]: dangling indices and mismatched counts.

use super::{Scene, Track};

pub use crate::error::SceneError;

impl Scene {
    /// Every inconsistency in the scene: indices out of range, parent cycles, per-vertex arrays
    /// of the wrong length, indices past the vertices, morph target counts, texture sizes,
    /// textured materials on primitives without UVs, camera and light parameters glTF rejects,
    /// values that are not finite numbers,
    /// channel key and value counts, times not strictly increasing. Empty when the scene can be
    /// exported.
    pub fn check(&self) -> Vec<SceneError> {
        let mut out = Vec::new();
        let mut err = |path: String, what: String| out.push(SceneError { path, what });
        let parents: Vec<Option<usize>> = self.nodes.iter().map(|n| n.parent).collect();
        let cyclic = super::reaches_cycle(&parents);
        for (i, n) in self.nodes.iter().enumerate() {
            let p = format!("/nodes/{i}");
            let finite = match &n.transform {
                super::Transform::Trs {
                    translation,
                    rotation,
                    scale,
                } => all_finite(translation) && all_finite(rotation) && all_finite(scale),
                super::Transform::Matrix(m) => all_finite(m),
            };
            if !finite || !all_finite(&n.weights) {
                err(
                    format!("{p}/transform"),
                    "a transform or weight is not a finite number".into(),
                );
            }
            let refs = [
                ("parent", n.parent, self.nodes.len()),
                ("mesh", n.mesh, self.meshes.len()),
                ("camera", n.camera, self.cameras.len()),
                ("light", n.light, self.lights.len()),
                ("skin", n.skin, self.skins.len()),
            ];
            for (what, idx, len) in refs {
                if let Some(x) = idx {
                    if x >= len {
                        err(
                            format!("{p}/{what}"),
                            format!("index {x} but there are only {len}"),
                        );
                    }
                }
            }
            if cyclic[i] {
                err(format!("{p}/parent"), "the parent chain is a cycle".into());
            }
            if !n.weights.is_empty() {
                let targets = n
                    .mesh
                    .and_then(|m| self.meshes.get(m))
                    .map(|m| m.target_names.len());
                if targets != Some(n.weights.len()) {
                    err(
                        format!("{p}/weights"),
                        format!(
                            "{} weights but the mesh has {} morph targets",
                            n.weights.len(),
                            targets.unwrap_or(0)
                        ),
                    );
                }
            }
        }
        self.check_skins(&mut err);
        for (mi, m) in self.meshes.iter().enumerate() {
            if m.primitives.is_empty() {
                err(
                    format!("/meshes/{mi}/primitives"),
                    "a mesh needs at least one primitive".into(),
                );
            }
            for (pi, pr) in m.primitives.iter().enumerate() {
                let p = format!("/meshes/{mi}/primitives/{pi}");
                let n = pr.positions.len();
                if n == 0 {
                    err(format!("{p}/positions"), "no vertices".into());
                }
                for (what, len) in [
                    ("normals", pr.normals.len()),
                    ("uvs", pr.uvs.len()),
                    ("colors", pr.colors.len()),
                ] {
                    if len != 0 && len != n {
                        err(
                            format!("{p}/{what}"),
                            format!("{len} entries for {n} vertices"),
                        );
                    }
                }
                if let Some(bad) = pr.indices.iter().find(|&&x| x as usize >= n) {
                    err(
                        format!("{p}/indices"),
                        format!("index {bad} but there are only {n} vertices"),
                    );
                }
                let per = match pr.mode {
                    super::PrimitiveMode::Triangles => 3,
                    super::PrimitiveMode::Lines => 2,
                    super::PrimitiveMode::Points => 1,
                };
                let count = if pr.indices.is_empty() {
                    n
                } else {
                    pr.indices.len()
                };
                if count % per != 0 {
                    err(
                        format!("{p}/indices"),
                        format!("{count} vertices drawn, not a multiple of {per}"),
                    );
                }
                if let Some(mat) = pr.material {
                    if mat >= self.materials.len() {
                        err(
                            format!("{p}/material"),
                            format!("index {mat} but there are only {}", self.materials.len()),
                        );
                    }
                }
                let textured = pr
                    .material
                    .and_then(|x| self.materials.get(x))
                    .is_some_and(|x| x.texture.is_some());
                if textured && pr.uvs.is_empty() {
                    err(
                        format!("{p}/uvs"),
                        "the material has a texture but the primitive has no UVs".into(),
                    );
                }
                let arrays: [(&str, bool); 4] = [
                    ("positions", pr.positions.iter().all(|v| all_finite(v))),
                    ("normals", pr.normals.iter().all(|v| all_finite(v))),
                    ("uvs", pr.uvs.iter().all(|v| all_finite(v))),
                    ("colors", pr.colors.iter().all(|v| all_finite(v))),
                ];
                for (what, ok) in arrays {
                    if !ok {
                        err(
                            format!("{p}/{what}"),
                            "a value is not a finite number".into(),
                        );
                    }
                }
                if let Some(t) = pr
                    .targets
                    .iter()
                    .position(|t| !t.positions.iter().all(|v| all_finite(v)))
                {
                    err(
                        format!("{p}/targets/{t}/positions"),
                        "a value is not a finite number".into(),
                    );
                }
                if pr.targets.len() != m.target_names.len() {
                    err(
                        format!("{p}/targets"),
                        format!(
                            "{} targets but the mesh names {}",
                            pr.targets.len(),
                            m.target_names.len()
                        ),
                    );
                }
                for (ti, t) in pr.targets.iter().enumerate() {
                    if t.positions.len() != n {
                        err(
                            format!("{p}/targets/{ti}/positions"),
                            format!("{} positions for {n} vertices", t.positions.len()),
                        );
                    }
                }
            }
        }
        for (i, c) in self.cameras.iter().enumerate() {
            let ok = match c.projection {
                super::Projection::Perspective {
                    yfov,
                    znear,
                    zfar,
                    aspect_ratio,
                } => {
                    yfov > 0.0
                        && yfov < std::f32::consts::PI
                        && znear > 0.0
                        && zfar.map_or(true, |f| f > znear && f.is_finite())
                        && aspect_ratio.map_or(true, |a| a > 0.0 && a.is_finite())
                }
                super::Projection::Orthographic {
                    xmag,
                    ymag,
                    znear,
                    zfar,
                } => xmag != 0.0 && ymag != 0.0 && znear >= 0.0 && zfar > znear && zfar.is_finite(),
            };
            if !ok {
                err(format!("/cameras/{i}/projection"), format!("{:?} is not a valid projection (yfov in (0, π), 0 < znear < zfar, aspect > 0)", c.projection));
            }
        }
        for (i, l) in self.lights.iter().enumerate() {
            if !(l.intensity >= 0.0 && l.intensity.is_finite()) {
                err(
                    format!("/lights/{i}/intensity"),
                    format!("{} is not ≥ 0", l.intensity),
                );
            }
            if l.color.iter().any(|c| !(0.0..=1.0).contains(c)) {
                err(
                    format!("/lights/{i}/color"),
                    format!("{:?} is outside 0..1", l.color),
                );
            }
            if l.range.is_some_and(|r| !(r > 0.0 && r.is_finite())) {
                err(format!("/lights/{i}/range"), "must be > 0".into());
            }
            if let super::LightKind::Spot {
                inner_cone_angle: a,
                outer_cone_angle: b,
            } = l.kind
            {
                if !(a >= 0.0 && a < b && b <= std::f32::consts::FRAC_PI_2) {
                    err(
                        format!("/lights/{i}/kind"),
                        format!("spot cone angles {a}, {b}: need 0 ≤ inner < outer ≤ π/2"),
                    );
                }
            }
        }
        for (i, m) in self.materials.iter().enumerate() {
            if !all_finite(&m.base_color) {
                err(
                    format!("/materials/{i}/base_color"),
                    "a value is not a finite number".into(),
                );
            }
            if let super::AlphaMode::Mask { cutoff } = m.alpha_mode {
                if !(cutoff >= 0.0 && cutoff.is_finite()) {
                    err(
                        format!("/materials/{i}/alpha_mode"),
                        format!("cutoff {cutoff} is not ≥ 0"),
                    );
                }
            }
            if let Some(t) = m.texture {
                if t >= self.textures.len() {
                    err(
                        format!("/materials/{i}/texture"),
                        format!("index {t} but there are only {}", self.textures.len()),
                    );
                }
            }
        }
        for (i, t) in self.textures.iter().enumerate() {
            let want = t.width as u64 * t.height as u64 * 4;
            if t.width == 0 || t.height == 0 {
                err(
                    format!("/textures/{i}"),
                    "width and height must be > 0".into(),
                );
            } else if t.pixels.len() as u64 != want {
                err(
                    format!("/textures/{i}/pixels"),
                    format!(
                        "{} bytes, {want} expected for {}×{} RGBA8",
                        t.pixels.len(),
                        t.width,
                        t.height
                    ),
                );
            }
        }
        for (ai, a) in self.animations.iter().enumerate() {
            let mut seen = std::collections::HashSet::new();
            for (ci, c) in a.channels.iter().enumerate() {
                let p = format!("/animations/{ai}/channels/{ci}");
                if !seen.insert((c.node, c.track.path())) {
                    err(
                        p.clone(),
                        format!("a second {} channel for node {}", c.track.path(), c.node),
                    );
                }
                let Some(node) = self.nodes.get(c.node) else {
                    err(
                        format!("{p}/node"),
                        format!(
                            "index {} but there are only {} nodes",
                            c.node,
                            self.nodes.len()
                        ),
                    );
                    continue;
                };
                if c.times.is_empty() {
                    err(format!("{p}/times"), "no keys".into());
                }
                if let Some(k) = c
                    .times
                    .windows(2)
                    .position(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less))
                {
                    err(
                        format!("{p}/times/{}", k + 1),
                        "times must be strictly increasing".into(),
                    );
                }
                if c.times.iter().any(|t| !t.is_finite() || *t < 0.0) {
                    err(format!("{p}/times"), "times must be finite and ≥ 0".into());
                }
                let values_finite = match &c.track {
                    Track::Translation(v) | Track::Scale(v) => v.iter().all(|x| all_finite(x)),
                    Track::Rotation(v) => v.iter().all(|x| all_finite(x)),
                    Track::Weights(v) => v.iter().all(|x| all_finite(x)),
                    Track::Visibility(_) => true,
                };
                if !values_finite {
                    err(
                        format!("{p}/track"),
                        "a value is not a finite number".into(),
                    );
                }
                let per_key = match (c.interpolation, &c.track) {
                    (_, Track::Visibility(_)) => 1,
                    (super::Interpolation::Cubicspline, _) => 3,
                    _ => 1,
                };
                if c.track.len() != c.times.len() * per_key {
                    err(
                        format!("{p}/track"),
                        format!(
                            "{} values for {} keys ({per_key} per key expected)",
                            c.track.len(),
                            c.times.len()
                        ),
                    );
                }
                if let Track::Weights(w) = &c.track {
                    let targets = node
                        .mesh
                        .and_then(|m| self.meshes.get(m))
                        .map_or(0, |m| m.target_names.len());
                    if targets == 0 {
                        err(
                            format!("{p}/node"),
                            "weights animated on a node without morph targets".into(),
                        );
                    } else if let Some(k) = w.iter().position(|v| v.len() != targets) {
                        err(
                            format!("{p}/track/{k}"),
                            format!("{} weights for {targets} morph targets", w[k].len()),
                        );
                    }
                }
            }
        }
        out
    }
}

impl Scene {
    /// Skins: joints in range and under one root, one inverse bind matrix per joint, skinned
    /// nodes with a mesh whose every primitive has joints and weights for each vertex (indices
    /// below the joint count, weights summing to 1), and no joints on unskinned meshes.
    fn check_skins(&self, err: &mut dyn FnMut(String, String)) {
        let root = |mut i: usize| {
            let mut steps = 0;
            while let Some(p) = self.nodes.get(i).and_then(|n| n.parent) {
                steps += 1;
                if steps > self.nodes.len() {
                    break;
                }
                i = p;
            }
            i
        };
        for (si, s) in self.skins.iter().enumerate() {
            let p = format!("/skins/{si}");
            if s.joints.is_empty() {
                err(
                    format!("{p}/joints"),
                    "a skin needs at least one joint".into(),
                );
            }
            if let Some(j) = s.joints.iter().find(|&&j| j >= self.nodes.len()) {
                err(
                    format!("{p}/joints"),
                    format!("node {j} but there are only {}", self.nodes.len()),
                );
            } else {
                let roots: std::collections::BTreeSet<usize> =
                    s.joints.iter().map(|&j| root(j)).collect();
                if roots.len() > 1 {
                    err(
                        format!("{p}/joints"),
                        format!("the joints have no common root (roots {roots:?})"),
                    );
                }
            }
            let n = s.inverse_bind_matrices.len();
            if n != 0 && n != s.joints.len() {
                err(
                    format!("{p}/inverse_bind_matrices"),
                    format!("{n} matrices for {} joints", s.joints.len()),
                );
            }
            if !s.inverse_bind_matrices.iter().all(|m| all_finite(m)) {
                err(
                    format!("{p}/inverse_bind_matrices"),
                    "a value is not a finite number".into(),
                );
            }
        }
        let mut skin_of_mesh = vec![None; self.meshes.len()];
        for n in &self.nodes {
            if let (Some(m), Some(s)) = (n.mesh, n.skin) {
                if m < self.meshes.len() {
                    skin_of_mesh[m] = Some(s);
                }
            }
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if n.skin.is_some() && n.mesh.is_none() {
                err(
                    format!("/nodes/{i}/skin"),
                    "a skin on a node without a mesh".into(),
                );
            }
        }
        for (mi, m) in self.meshes.iter().enumerate() {
            let joints = skin_of_mesh[mi]
                .and_then(|s| self.skins.get(s))
                .map(|s| s.joints.len());
            for (pi, pr) in m.primitives.iter().enumerate() {
                let p = format!("/meshes/{mi}/primitives/{pi}");
                let n = pr.positions.len();
                match joints {
                    None if !pr.joints.is_empty() || !pr.weights.is_empty() => err(
                        format!("{p}/joints"),
                        "joints or weights on a mesh no skinned node shows".into(),
                    ),
                    None => {}
                    Some(count) => {
                        if pr.joints.len() != n || pr.weights.len() != n {
                            err(
                                format!("{p}/joints"),
                                format!(
                                    "{} joints and {} weights for {n} vertices of a skinned mesh",
                                    pr.joints.len(),
                                    pr.weights.len()
                                ),
                            );
                        }
                        if let Some(j) = pr.joints.iter().flatten().find(|&&j| j as usize >= count)
                        {
                            err(
                                format!("{p}/joints"),
                                format!("joint {j} but the skin has only {count}"),
                            );
                        }
                        let bad = |w: &[f32; 4]| {
                            !all_finite(w)
                                || w.iter().any(|x| *x < 0.0)
                                || (w.iter().sum::<f32>() - 1.0).abs() > 2e-6 * 4.0
                        };
                        if let Some(k) = pr.weights.iter().position(bad) {
                            err(
                                format!("{p}/weights/{k}"),
                                "weights must be ≥ 0 and sum to 1".into(),
                            );
                        }
                    }
                }
            }
        }
    }
}

fn all_finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn paths(s: &Scene) -> Vec<String> {
        s.check().into_iter().map(|e| e.path).collect()
    }

    #[test]
    fn parent_cycles_and_dangling_indices() {
        let mut s = Scene {
            nodes: vec![Node::new("a"), Node::new("b")],
            ..Scene::default()
        };
        s.nodes[0].parent = Some(1);
        s.nodes[1].parent = Some(0);
        assert_eq!(paths(&s), ["/nodes/0/parent", "/nodes/1/parent"]);
        s.nodes[1].parent = None;
        s.nodes[1].camera = Some(0);
        assert_eq!(paths(&s), ["/nodes/1/camera"]);
    }

    #[test]
    fn mesh_counts_and_weights() {
        let mut s = Scene::default();
        s.meshes.push(Mesh {
            primitives: vec![Primitive {
                positions: vec![[0.0; 3]; 4],
                normals: vec![[0.0, 1.0, 0.0]; 3],
                indices: vec![0, 1, 4],
                targets: vec![MorphTarget::default()],
                ..Primitive::default()
            }],
            target_names: vec!["t".into()],
            ..Mesh::default()
        });
        s.nodes.push(Node {
            mesh: Some(0),
            weights: vec![0.0, 1.0],
            ..Node::new("n")
        });
        assert_eq!(
            paths(&s),
            [
                "/nodes/0/weights",
                "/meshes/0/primitives/0/normals",
                "/meshes/0/primitives/0/indices",
                "/meshes/0/primitives/0/targets/0/positions",
            ]
        );
    }

    #[test]
    fn channels_cameras_lights_textures() {
        let mut s = Scene::default();
        s.nodes.push(Node::new("n"));
        s.textures.push(Texture {
            width: 2,
            height: 2,
            pixels: vec![0; 15],
            ..Texture::default()
        });
        s.cameras.push(Camera {
            name: "c".into(),
            projection: Projection::Perspective {
                yfov: 0.5,
                znear: 1.0,
                zfar: Some(0.5),
                aspect_ratio: None,
            },
        });
        s.lights.push(Light {
            name: "l".into(),
            kind: LightKind::Spot {
                inner_cone_angle: 0.5,
                outer_cone_angle: 0.4,
            },
            color: [1.0; 3],
            intensity: -1.0,
            range: None,
        });
        s.animations.push(Animation {
            name: "a".into(),
            channels: vec![
                Channel {
                    node: 0,
                    interpolation: Interpolation::Cubicspline,
                    times: vec![0.0, 1.0],
                    track: Track::Translation(vec![[0.0; 3]; 2]),
                },
                Channel {
                    node: 0,
                    interpolation: Interpolation::Step,
                    times: vec![0.0],
                    track: Track::Weights(vec![vec![1.0]]),
                },
            ],
            extras: serde_json::Value::Null,
        });
        assert_eq!(
            paths(&s),
            [
                "/cameras/0/projection",
                "/lights/0/intensity",
                "/lights/0/kind",
                "/textures/0/pixels",
                "/animations/0/channels/0/track",
                "/animations/0/channels/1/node",
            ]
        );
    }

    #[test]
    fn frame_weights_select_one_target_per_key() {
        let c = Channel::frame_weights(3, vec![0.0, 0.5, 1.0], Interpolation::Linear);
        assert_eq!(
            c.track,
            Track::Weights(vec![
                vec![1.0, 0.0, 0.0],
                vec![0.0, 1.0, 0.0],
                vec![0.0, 0.0, 1.0]
            ])
        );
    }
}
