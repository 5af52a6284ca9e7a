//! Just enough of a glTF reader for tests: accessors, node world matrices at an animation key,
//! and linear blend skinning, computed from the exported JSON and buffer alone.

use base64::Engine;
use serde_json::Value;

/// A parsed `.gltf` (JSON with an embedded base64 buffer).
pub struct Gltf {
    pub json: Value,
    pub bin: Vec<u8>,
}

/// A column-major 4×4 matrix.
pub type M4 = [f64; 16];

pub fn mul(a: &M4, b: &M4) -> M4 {
    let mut o = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    o
}

pub fn apply(m: &M4, p: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|r| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
}

fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> M4 {
    let [x, y, z, w] = q;
    let r = retroanim::scene::sample::quat_matrix([x, y, z, w]);
    let mut m = [0.0; 16];
    for c in 0..3 {
        for (rr, row) in r.iter().enumerate() {
            m[c * 4 + rr] = row[c] * s[c];
        }
    }
    m[12..15].copy_from_slice(&t);
    m[15] = 1.0;
    m
}

fn vec_of<const N: usize>(v: &Value, default: [f64; N]) -> [f64; N] {
    match v.as_array() {
        Some(a) if a.len() == N => std::array::from_fn(|i| a[i].as_f64().unwrap()),
        _ => default,
    }
}

impl Gltf {
    pub fn parse(text: &[u8]) -> Gltf {
        let json: Value = serde_json::from_slice(text).unwrap();
        let bin = match json["buffers"][0]["uri"].as_str() {
            Some(uri) => {
                let b64 = uri.split_once(',').unwrap().1;
                base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .unwrap()
            }
            None => Vec::new(),
        };
        Gltf { json, bin }
    }

    /// An accessor's elements as f64 (floats or unsigned shorts/bytes), `n` components each.
    pub fn accessor(&self, i: usize) -> Vec<Vec<f64>> {
        let a = &self.json["accessors"][i];
        let v = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let base = v["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0);
        let n = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("accessor type {t}"),
        };
        let (size, read): (usize, fn(&[u8]) -> f64) = match a["componentType"].as_u64().unwrap() {
            5126 => (4, |b| f32::from_le_bytes(b.try_into().unwrap()) as f64),
            5123 => (2, |b| u16::from_le_bytes(b.try_into().unwrap()) as f64),
            5121 => (1, |b| b[0] as f64),
            c => panic!("component type {c}"),
        };
        let count = a["count"].as_u64().unwrap() as usize;
        (0..count)
            .map(|e| {
                (0..n)
                    .map(|k| {
                        let at = base as usize + (e * n + k) * size;
                        read(&self.bin[at..at + size])
                    })
                    .collect()
            })
            .collect()
    }

    /// Every node's world matrix with animation `anim` at key `key` (every channel of the
    /// animation keyed at the same times), or at rest with `None`.
    /// The rest positions (glTF axes) of the first node's mesh, every primitive in order:
    /// the order [`Gltf::skinned_positions`] gives its vertices in.
    pub fn mesh_positions(&self) -> Vec<[f64; 3]> {
        let mesh = self.json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|n| n["mesh"].as_u64())
            .unwrap();
        self.json["meshes"][mesh as usize]["primitives"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| self.accessor(p["attributes"]["POSITION"].as_u64().unwrap() as usize))
            .map(|v| [v[0], v[1], v[2]])
            .collect()
    }

    pub fn world_matrices(&self, anim: Option<(usize, usize)>) -> Vec<M4> {
        let nodes = self.json["nodes"].as_array().unwrap();
        let mut t: Vec<[f64; 3]> = nodes
            .iter()
            .map(|n| vec_of(&n["translation"], [0.0; 3]))
            .collect();
        let mut r: Vec<[f64; 4]> = nodes
            .iter()
            .map(|n| vec_of(&n["rotation"], [0.0, 0.0, 0.0, 1.0]))
            .collect();
        let mut s: Vec<[f64; 3]> = nodes
            .iter()
            .map(|n| vec_of(&n["scale"], [1.0; 3]))
            .collect();
        if let Some((a, key)) = anim {
            let a = &self.json["animations"][a];
            for c in a["channels"].as_array().unwrap() {
                let node = c["target"]["node"].as_u64().unwrap() as usize;
                let sampler = &a["samplers"][c["sampler"].as_u64().unwrap() as usize];
                assert_eq!(sampler["interpolation"], "LINEAR");
                let out = self.accessor(sampler["output"].as_u64().unwrap() as usize);
                let v = &out[key];
                match c["target"]["path"].as_str().unwrap() {
                    "translation" => t[node] = [v[0], v[1], v[2]],
                    "rotation" => r[node] = [v[0], v[1], v[2], v[3]],
                    "scale" => s[node] = [v[0], v[1], v[2]],
                    _ => {}
                }
            }
        }
        let mut parent = vec![None; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            for c in n["children"].as_array().into_iter().flatten() {
                parent[c.as_u64().unwrap() as usize] = Some(i);
            }
        }
        (0..nodes.len())
            .map(|i| {
                let mut m = trs(t[i], r[i], s[i]);
                let mut p = parent[i];
                while let Some(k) = p {
                    m = mul(&trs(t[k], r[k], s[k]), &m);
                    p = parent[k];
                }
                m
            })
            .collect()
    }

    /// The skinned positions of every primitive of the mesh on every skinned node:
    /// `Σ w · world(joint) · inverse_bind · position`.
    pub fn skinned_positions(&self, worlds: &[M4]) -> Vec<[f64; 3]> {
        let mut out = Vec::new();
        for n in self.json["nodes"].as_array().unwrap() {
            let (Some(skin), Some(mesh)) = (n["skin"].as_u64(), n["mesh"].as_u64()) else {
                continue;
            };
            let skin = &self.json["skins"][skin as usize];
            let joints: Vec<usize> = skin["joints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j.as_u64().unwrap() as usize)
                .collect();
            let ibm = self.accessor(skin["inverseBindMatrices"].as_u64().unwrap() as usize);
            for p in self.json["meshes"][mesh as usize]["primitives"]
                .as_array()
                .unwrap()
            {
                let at = |k: &str| self.accessor(p["attributes"][k].as_u64().unwrap() as usize);
                let (pos, js, ws) = (at("POSITION"), at("JOINTS_0"), at("WEIGHTS_0"));
                for v in 0..pos.len() {
                    let mut sum = [0.0; 3];
                    for k in 0..4 {
                        let j = js[v][k] as usize;
                        let ib: M4 = std::array::from_fn(|e| ibm[j][e]);
                        let m = mul(&worlds[joints[j]], &ib);
                        let q = apply(&m, [pos[v][0], pos[v][1], pos[v][2]]);
                        for c in 0..3 {
                            sum[c] += ws[v][k] * q[c];
                        }
                    }
                    out.push(sum);
                }
            }
        }
        out
    }
}
