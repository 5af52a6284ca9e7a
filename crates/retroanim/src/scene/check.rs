//! Consistency checks of a [`Scene`]: dangling indices and mismatched counts.

use super::{Scene, Track};

/// One problem [`Scene::check`] found, with a JSON-pointer-like path to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneError {
    /// Where, e.g. `/meshes/0/primitives/1/normals`.
    pub path: String,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

impl Scene {
    /// Every inconsistency in the scene: indices out of range, parent cycles, per-vertex arrays
    /// of the wrong length, indices past the vertices, morph target counts, texture sizes,
    /// textured materials on primitives without UVs, camera and light parameters glTF rejects,
    /// channel key and value counts, times not strictly increasing. Empty when the scene can be
    /// exported.
    pub fn check(&self) -> Vec<SceneError> {
        let mut out = Vec::new();
        let mut err = |path: String, what: String| out.push(SceneError { path, what });
        for (i, n) in self.nodes.iter().enumerate() {
            let p = format!("/nodes/{i}");
            let refs = [
                ("parent", n.parent, self.nodes.len()),
                ("mesh", n.mesh, self.meshes.len()),
                ("camera", n.camera, self.cameras.len()),
                ("light", n.light, self.lights.len()),
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
            // Walk up the parents: more steps than nodes means a cycle.
            let mut cur = n.parent;
            let mut steps = 0;
            while let Some(c) = cur {
                steps += 1;
                if steps > self.nodes.len() || c >= self.nodes.len() {
                    if steps > self.nodes.len() {
                        err(format!("{p}/parent"), "the parent chain is a cycle".into());
                    }
                    break;
                }
                cur = self.nodes[c].parent;
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
