//! An independent check of the renderer's coverage: corpus TMDs (textured and not) drawn by
//! `retroanim::render` and, as the GLB the library exports, by three.js in headless Chromium
//! (`tools/threejs-check/silhouette.mjs`, WebGL through SwiftShader), with the same camera.
//! The silhouettes (pixels any polygon covers) must agree: intersection over union ≥
//! [`MIN_IOU`] per picture, and at most [`MAX_FAR`] pixels of either silhouette farther than
//! one pixel from the other. Measured (16 pictures of 8 models at 256 × 256): IoU 0.963 to
//! 0.994 (the lowest for DINO, whose 4,400-pixel silhouette is mostly thin edges), and at most
//! one pixel farther than a pixel from the other silhouette.
//!
//! The three.js camera is derived from the renderer's documented projection (`render` module
//! docs), not fitted: the GTE maps a TMD vertex `p` to camera space `c = t + M·p / 4096` (the
//! view matrix `M`, 4.12 fixed point, and translation `t` of [`render::Camera::frame`]) and
//! to the screen at `OFX + H·c.x / c.z`, `OFY + H·c.y / c.z` (+Y down). The GLB holds
//! `g = D·p / 4096` with `D = diag(1, −1, −1)` (glTF's +Y up: a half turn about X), so three.js's
//! camera space (x right, y up, looking down −z) is `D·c = D·M·D·g + D·t`, and its projection
//! has `2H/W`, `2H/height` on the diagonal and the screen centre's offset from the picture's
//! middle in the third column. The GTE floors screen coordinates and the GPU samples pixels at
//! their top-left corners, which together put a vertex within half a pixel of the continuous
//! projection that WebGL samples at pixel centres: edges may differ by a pixel.
//!
//! Coverage on the console side: the picture is drawn twice, on black and on white, with
//! nothing in VRAM (textured polygons drawn in their shading colour, so no texel is
//! transparent); a pixel is covered when it differs from the background in either picture
//! (semi-transparent polygons included). Three.js draws every mesh in plain white without
//! textures, culling back faces unless the material is double-sided (the export's reading
//! of the TMD's FCE bit).
//!
//! Skipped loudly when Node, three.js, playwright-core or Chromium is missing, unless
//! `RETROANIM_REQUIRE_CORPUS=1`.

mod common;

use std::path::{Path, PathBuf};

use retroanim::convert::{self, Options};
use retroanim::formats::gte::Mat;
use retroanim::formats::tmd::{self, Tmd};
use retroanim::render::{self, Camera, View};
use retroanim::vram::Vram;
use retroanim::{Format, Model};
use serde_json::{json, Value};

/// The least intersection over union of the two silhouettes of one picture.
const MIN_IOU: f64 = 0.95;

/// The most pixels of one picture covered in one silhouette with no pixel of the other within
/// one pixel (3 × 3 neighbourhood): edges may differ by a pixel, nothing more.
const MAX_FAR: usize = 8;

/// Picture size.
const SIDE: u32 = 256;

/// The corpus TMDs drawn (manifest path suffixes): Sony's samples, textured and not.
const MODELS: &[&str] = &[
    "TMDVIEW/DATA/SHUTTLE1.TMD",
    "TMDVIEW/DATA/VENUS3G.TMD",
    "TMDVIEW/DATA/CUBE4T.TMD",
    "TMDVIEW/DATA/MADO.TMD",
    "JANKEN/TMD/TE.TMD",
    "graphics/TMD/DINO.TMD",
    "graphics/TMD/EARTH.TMD",
    "MISC/60FRAME/GIULIETA.TMD",
];

/// The views (yaw, pitch in degrees) each model is drawn from.
const VIEWS: &[(f64, f64)] = &[(45.0, 30.0), (210.0, -25.0)];

/// Whether Node, three.js, playwright-core and Chromium are there; says loudly when not.
fn browser_ready(tool: &Path) -> bool {
    let chromium = std::env::var_os("CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    let missing = if !tool.join("node_modules/three").is_dir()
        || !tool.join("node_modules/playwright-core").is_dir()
    {
        Some(format!(
            "{} has no node_modules/three or playwright-core (run scripts/test, or npm ci there)",
            tool.display()
        ))
    } else if !Path::new(&chromium).is_file() {
        Some(format!(
            "{} is missing (apt-get install chromium)",
            chromium.to_string_lossy()
        ))
    } else if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        Some("node cannot run".into())
    } else {
        None
    };
    if let Some(why) = missing {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "RETROANIM_REQUIRE_CORPUS=1 but the three.js silhouette check cannot run: {why}"
        );
        eprintln!("\n*** SKIPPING the three.js silhouette check: {why} ***\n");
        return false;
    }
    true
}

/// The renderer's coverage of `tmd` seen from `view` (see the module docs).
fn console_mask(tmd: &Tmd, camera: &Camera, view: &View) -> Vec<bool> {
    let shown: Vec<render::Instance> = (0..tmd.objects.len()).map(|i| (i, Mat::IDENTITY)).collect();
    let draw = |bg: [u8; 3]| {
        let v = View {
            background: bg,
            ..*view
        };
        let (fb, _) = render::draw_tmd(tmd, &shown, &Vram::new(), camera, &v);
        let back = render::raster::rgb15(bg);
        fb.pixels
            .iter()
            .map(move |&p| p != back)
            .collect::<Vec<_>>()
    };
    let (black, white) = (draw([0; 3]), draw([255; 3]));
    black.iter().zip(&white).map(|(a, b)| *a || *b).collect()
}

/// Pixels covered in `a` with no pixel of `b` in their 3 × 3 neighbourhood.
fn farther_than_a_pixel(a: &[bool], b: &[bool]) -> usize {
    let side = SIDE as i64;
    (0..a.len())
        .filter(|&i| a[i])
        .filter(|&i| {
            let (x, y) = (i as i64 % side, i as i64 / side);
            !(-1..=1).any(|dy| {
                (-1..=1).any(|dx| {
                    let (u, v) = (x + dx, y + dy);
                    (0..side).contains(&u) && (0..side).contains(&v) && b[(v * side + u) as usize]
                })
            })
        })
        .count()
}

/// Column-major 4 × 4 of a row-major one.
fn column_major(rows: [[f64; 4]; 4]) -> Vec<f64> {
    (0..16).map(|k| rows[k % 4][k / 4]).collect()
}

/// three.js's view and projection matrices for `camera` (see the module docs).
fn threejs_camera(camera: &Camera, view: &View) -> (Vec<f64>, Vec<f64>) {
    let d = [1.0, -1.0, -1.0];
    let m = &camera.matrix;
    let mut v = [[0.0; 4]; 4];
    for i in 0..3 {
        for j in 0..3 {
            v[i][j] = d[i] * f64::from(m.m[i][j]) * d[j];
        }
        v[i][3] = d[i] * f64::from(m.t[i]);
    }
    v[3][3] = 1.0;
    let s = camera.screen;
    let (w, h, proj) = (
        f64::from(view.width),
        f64::from(view.height),
        f64::from(s.h),
    );
    // Near at the renderer's own limit (a corner nearer than H/2 is not drawn), far past the
    // GTE's 16-bit depth.
    let (near, far) = (proj / 2.0, 131_072.0);
    let p = [
        [2.0 * proj / w, 0.0, (w - 2.0 * f64::from(s.ofx)) / w, 0.0],
        [0.0, 2.0 * proj / h, (2.0 * f64::from(s.ofy) - h) / h, 0.0],
        [
            0.0,
            0.0,
            -(far + near) / (far - near),
            -2.0 * far * near / (far - near),
        ],
        [0.0, 0.0, -1.0, 0.0],
    ];
    (column_major(v), column_major(p))
}

#[test]
fn threejs_draws_the_same_silhouettes_as_the_console_renderer() {
    let files = common::corpus_files("TMD");
    if files.is_empty() {
        return;
    }
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/threejs-check");
    if !browser_ready(&tool) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("retroanim-silhouette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cases: Vec<Value> = Vec::new();
    let mut ours: Vec<(String, Vec<bool>)> = Vec::new();
    let (mut textured, mut plain) = (0, 0);
    for suffix in MODELS {
        let Some((name, path)) = files.iter().find(|(n, _)| n.ends_with(suffix)) else {
            panic!("the corpus has no TMD ending in {suffix}");
        };
        let t = tmd::read(&std::fs::read(path).unwrap()).unwrap();
        let is_textured = t
            .meshes()
            .iter()
            .flat_map(|m| &m.triangles)
            .any(|tri| tri.texture.is_some());
        *(if is_textured {
            &mut textured
        } else {
            &mut plain
        }) += 1;
        let glb = convert::convert(&Model::Tmd(t.clone()), Format::Glb, &Options::default())
            .unwrap()
            .bytes;
        let glb_path: PathBuf = dir.join(format!("{}.glb", cases.len()));
        std::fs::write(&glb_path, glb).unwrap();
        let shown: Vec<render::Instance> =
            (0..t.objects.len()).map(|i| (i, Mat::IDENTITY)).collect();
        let bounds = render::tmd_bounds(&t, &shown).unwrap();
        for (k, &(yaw, pitch)) in VIEWS.iter().enumerate() {
            let view = View {
                yaw: Some(yaw),
                pitch,
                width: SIDE,
                height: SIDE,
                ..View::default()
            };
            let camera = Camera::frame(bounds, &view);
            let (v, p) = threejs_camera(&camera, &view);
            cases.push(json!({
                "glb": glb_path, "width": SIDE, "height": SIDE, "view": v, "projection": p,
                "png": dir.join(format!("{}-{k}.png", cases.len())),
            }));
            ours.push((
                format!("{name} (yaw {yaw}, pitch {pitch})"),
                console_mask(&t, &camera, &view),
            ));
        }
    }
    assert!(
        textured > 0 && plain > 0,
        "{textured} textured, {plain} not"
    );
    let (job, out) = common::clients::write_job(&dir, &cases);
    let run = std::process::Command::new("node")
        .arg(tool.join("silhouette.mjs"))
        .arg(&job)
        .arg(&out)
        .output()
        .expect("cannot run node");
    assert!(
        run.status.success(),
        "silhouette.mjs failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let theirs: Vec<Value> = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(theirs.len(), ours.len());
    let (mut worst, mut far_worst) = (1.0f64, 0usize);
    let mut failures = Vec::new();
    for ((name, mine), t) in ours.iter().zip(&theirs) {
        let mask: Vec<bool> = t["mask"]
            .as_str()
            .unwrap()
            .bytes()
            .map(|b| b == b'1')
            .collect();
        assert_eq!(mask.len(), mine.len(), "{name}");
        let both = mine.iter().zip(&mask).filter(|(a, b)| **a && **b).count();
        let either = mine.iter().zip(&mask).filter(|(a, b)| **a || **b).count();
        let (only_ours, only_theirs) = (
            mine.iter().zip(&mask).filter(|(a, b)| **a && !**b).count(),
            mine.iter().zip(&mask).filter(|(a, b)| !**a && **b).count(),
        );
        let far = farther_than_a_pixel(mine, &mask) + farther_than_a_pixel(&mask, mine);
        let iou = both as f64 / either.max(1) as f64;
        eprintln!(
            "{name}: IoU {iou:.4} ({both} pixels both, {only_ours} only retroanim, {only_theirs} only three.js, {far} more than a pixel from the other silhouette)"
        );
        if both < 500 {
            failures.push(format!("{name}: the silhouette is nearly empty"));
        }
        if iou < MIN_IOU {
            failures.push(format!("{name}: IoU {iou:.4} < {MIN_IOU}"));
        }
        if far > MAX_FAR {
            failures.push(format!(
                "{name}: {far} pixels more than a pixel from the other silhouette (> {MAX_FAR})"
            ));
        }
        worst = worst.min(iou);
        far_worst = far_worst.max(far);
    }
    eprintln!(
        "silhouettes: {} pictures of {} models, worst IoU {worst:.4}, at most {far_worst} pixels more than a pixel apart",
        ours.len(),
        MODELS.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
