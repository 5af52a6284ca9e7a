//! Shared helpers for the integration tests: the corpus and golden files.
#![allow(dead_code)]

pub mod clients;
pub mod disc;
pub mod glb;
pub mod gltf_read;
pub mod hmd_anim;
pub mod hmd_asm;
pub mod psx_fixtures;
pub mod ram;
pub mod samples;
pub mod tod_model;

use std::path::{Path, PathBuf};

/// The largest difference between two console matrices' elements and translations.
pub fn mat_distance(a: &retroanim::formats::gte::Mat, b: &retroanim::formats::gte::Mat) -> i64 {
    let mut d = 0;
    for i in 0..3 {
        for j in 0..3 {
            d = d.max((a.m[i][j] as i64 - b.m[i][j] as i64).abs());
        }
        d = d.max((a.t[i] as i64 - b.t[i] as i64).abs());
    }
    d
}

/// An RTM matrix (BI's 12 numbers) as the glTF scene's column-major 4×4: x negated on both
/// sides, as docs/rtm.md states for the export.
pub fn rtm_scene_matrix(m: &[f32; 12]) -> [f64; 16] {
    let c = [-1.0, 1.0, 1.0];
    let mut o = [0.0; 16];
    for j in 0..3 {
        for i in 0..3 {
            o[4 * j + i] = m[3 * j + i] as f64 * c[i] * c[j];
        }
        o[12 + j] = m[9 + j] as f64 * c[j];
    }
    o[15] = 1.0;
    o
}

/// Linear → sRGB (0..1), as the PlayStation authors encode light colours.
pub fn srgb(c: f32) -> f64 {
    let c = c.clamp(0.0, 1.0) as f64;
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// A VDF/NDF laid out from the format's table (docs/vdf-ndf.md), not by the library's writer:
/// the block count, then per block object, offset, total and `total` SVECTORs (dx, dy, dz, pad).
pub fn diff_bytes(blocks: &[(u32, u32, &[[i16; 3]])]) -> Vec<u8> {
    let mut b = (blocks.len() as u32).to_le_bytes().to_vec();
    for (object, offset, d) in blocks {
        for w in [*object, *offset, d.len() as u32] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        for v in *d {
            for c in [v[0], v[1], v[2], 0] {
                b.extend_from_slice(&c.to_le_bytes());
            }
        }
    }
    b
}

/// The corpus folder: `$RETROANIM_CORPUS`, else `../shared/corpus` beside the repository.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("RETROANIM_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// Every corpus file of a manifest `kind` (e.g. `TOD`, `p3d-mlod`), as (manifest path, full path),
/// sorted. Without the corpus this says so loudly and returns nothing, unless
/// `RETROANIM_REQUIRE_CORPUS=1`, in which case it panics (CI sets it so corpus tests cannot
/// silently pass on nothing).
pub fn corpus_files(kind: &str) -> Vec<(String, PathBuf)> {
    let dir = corpus_dir();
    let manifest = dir.join("MANIFEST.tsv");
    let text = match std::fs::read_to_string(&manifest) {
        Ok(t) => t,
        Err(e) => {
            if std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() == Ok("1") {
                panic!(
                    "RETROANIM_REQUIRE_CORPUS=1 but the corpus manifest {} cannot be read: {e}",
                    manifest.display()
                );
            }
            eprintln!(
                "\n*** SKIPPING corpus test for {kind}: {} not found ({e}). Set RETROANIM_CORPUS. ***\n",
                manifest.display()
            );
            return Vec::new();
        }
    };
    let mut out: Vec<(String, PathBuf)> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let file = cols.next()?;
            let k = cols.next()?;
            (k == kind).then(|| (file.to_string(), dir.join(file)))
        })
        .collect();
    out.sort();
    assert!(
        !out.is_empty(),
        "the corpus manifest lists no files of kind {kind}"
    );
    out
}

/// The corpus file of a manifest `kind` whose path ends with `suffix`, or `None` without the
/// corpus ([`corpus_files`]); with `RETROANIM_REQUIRE_CORPUS=1` a suffix the manifest does not
/// list panics, so the test cannot pass on nothing.
pub fn corpus_file(kind: &str, suffix: &str) -> Option<PathBuf> {
    let found = corpus_files(kind)
        .into_iter()
        .find(|(n, _)| n.ends_with(suffix))
        .map(|(_, p)| p);
    if found.is_none() && std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() == Ok("1") {
        panic!("the corpus manifest lists no {kind} file ending in {suffix}");
    }
    found
}

/// The corpus HMD whose manifest path ends with `suffix`, read and decoded; `None` without the
/// corpus ([`corpus_file`]: under RETROANIM_REQUIRE_CORPUS=1 a missing file panics).
pub fn corpus_hmd(suffix: &str) -> Option<retroanim::formats::hmd::Hmd> {
    let path = corpus_file("HMD", suffix)?;
    Some(retroanim::formats::hmd::read(&std::fs::read(path).unwrap()).unwrap())
}

/// Compares `actual` with the committed golden file `tests/golden/<name>`, or rewrites it when
/// `UPDATE_GOLDEN=1`.
pub fn check_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "golden file {} missing ({e}); run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the output at line {}:\n  golden: {:?}\n  actual: {:?}\n(UPDATE_GOLDEN=1 rewrites it)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

/// The folder holding the Khronos glTF Validator runner (`tools/gltf-validator`).
pub fn gltf_validator_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/gltf-validator")
}

/// Runs the Khronos glTF Validator (`node tools/gltf-validator/validate.mjs FILE`) and returns
/// its report (JSON, with `issues.numErrors`, `issues.numWarnings` and `issues.messages`).
///
/// When the validator is not installed (no `node`, or no `node_modules`: run `npm ci` in
/// `tools/gltf-validator`), this says so loudly and returns `None` — unless
/// `RETROANIM_REQUIRE_CORPUS=1` (CI), where it panics so the check cannot silently pass.
pub fn khronos_validate(path: &Path) -> Option<serde_json::Value> {
    let dir = gltf_validator_dir();
    let missing = |why: String| -> Option<serde_json::Value> {
        if std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() == Ok("1") {
            panic!("RETROANIM_REQUIRE_CORPUS=1 but the Khronos glTF Validator cannot run: {why}");
        }
        eprintln!(
            "\n*** SKIPPING Khronos glTF Validator check of {}: {why} ***\n",
            path.display()
        );
        None
    };
    if !dir.join("node_modules/gltf-validator").is_dir() {
        return missing(format!(
            "{} has no node_modules (run `npm ci` there)",
            dir.display()
        ));
    }
    let out = match std::process::Command::new("node")
        .arg(dir.join("validate.mjs"))
        .arg(path)
        .output()
    {
        Ok(o) => o,
        Err(e) => return missing(format!("cannot run node: {e}")),
    };
    assert!(
        out.status.success(),
        "validate.mjs failed on {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("validate.mjs prints JSON"))
}

/// Asserts that the Khronos glTF Validator finds 0 errors and 0 warnings in `path` (skipped,
/// loudly, when the validator is not installed and CI does not require it). Returns the report.
pub fn assert_khronos_clean(path: &Path) -> Option<serde_json::Value> {
    let report = khronos_validate(path)?;
    let issues = &report["issues"];
    let (errors, warnings) = (
        issues["numErrors"].as_u64().unwrap_or(u64::MAX),
        issues["numWarnings"].as_u64().unwrap_or(u64::MAX),
    );
    if errors != 0 || warnings != 0 {
        let msgs: Vec<String> = issues["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["severity"].as_u64().is_some_and(|s| s <= 1))
            .map(|m| format!("{} {} at {}", m["code"], m["message"], m["pointer"]))
            .collect();
        panic!(
            "Khronos glTF Validator: {errors} errors, {warnings} warnings in {}:\n  {}",
            path.display(),
            msgs.join("\n  ")
        );
    }
    Some(report)
}

/// Runs a Blender check script (`tests/blender/<script>`, with the Python that has the `bpy`
/// module: `$RETROANIM_PYTHON`, else `python3`) with `args`, and panics with its output unless it
/// exits 0. Returns false (after saying so loudly) when `bpy` is not installed, unless
/// `RETROANIM_REQUIRE_CORPUS=1` (CI), where that panics: install it with
/// `python3 -m pip install -r tests/blender/requirements.txt`.
pub fn run_blender_check(script: &str, args: &[&Path]) -> bool {
    let python = std::env::var("RETROANIM_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_bpy = std::process::Command::new(&python)
        .args(["-c", "import bpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_bpy {
        let why =
            format!("{python} cannot import bpy (pip install -r tests/blender/requirements.txt)");
        if std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() == Ok("1") {
            panic!("RETROANIM_REQUIRE_CORPUS=1 but Blender cannot run: {why}");
        }
        eprintln!("\n*** SKIPPING Blender check {script}: {why} ***\n");
        return false;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/blender")
        .join(script);
    let out = std::process::Command::new(&python)
        .arg(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python} {}: {e}", path.display()));
    assert!(
        out.status.success(),
        "Blender check {script} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

/// The frames the client pose checks sample of an animation of `n` frames: every frame up to
/// 60, else every 10th and the last.
pub fn sampled_frames(n: usize) -> Vec<usize> {
    if n <= 60 {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..n).step_by(10).collect();
    if v.last() != Some(&(n - 1)) {
        v.push(n - 1);
    }
    v
}

/// Runs `tools/threejs-check/SCRIPT JOB OUT` in Node; `false` (said loudly) when three.js is
/// not installed there, a failure with `RETROANIM_REQUIRE_CORPUS=1`.
pub fn run_threejs_check(script: &str, job: &Path, out: &Path) -> bool {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/threejs-check");
    if !tool.join("node_modules/three").is_dir() {
        let why = format!(
            "{} has no node_modules/three (run scripts/test, or npm ci there)",
            tool.display()
        );
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "RETROANIM_REQUIRE_CORPUS=1 but three.js is missing: {why}"
        );
        eprintln!("\n*** SKIPPING three.js check {script}: {why} ***\n");
        return false;
    }
    let run = std::process::Command::new("node")
        .arg(tool.join(script))
        .arg(job)
        .arg(out)
        .output()
        .expect("cannot run node");
    assert!(
        run.status.success(),
        "{script} failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    true
}

/// Sequence `k` of an HMD exported alone (default options) to `glb`: the scene, its length in
/// frames (as the export took it) and a player at the sequence's start, for the client pose
/// checks.
pub fn export_hmd_sequence<'a>(
    m: &'a retroanim::formats::hmd::Hmd,
    k: usize,
    glb: &Path,
) -> (
    retroanim::scene::Scene,
    usize,
    retroanim::formats::hmd::Player<'a>,
) {
    use retroanim::formats::hmd::{PlayOptions, Player, SceneOptions};
    let scene = m
        .to_scene(&SceneOptions {
            sequence: Some(k),
            ..SceneOptions::default()
        })
        .unwrap();
    let frames = scene.animations[0].extras["frames"].as_u64().unwrap() as usize;
    std::fs::write(glb, retroanim::export::gltf::write_glb(&scene).unwrap()).unwrap();
    let player = Player::new(
        m,
        &PlayOptions {
            sequence: Some(k),
            ..PlayOptions::default()
        },
    );
    (scene, frames, player)
}

/// Every node's world matrix (column-major) at `time` in animation `anim` (`None`: at rest),
/// evaluated with the library's own sampler as a glTF viewer composes it.
pub fn worlds_at(
    scene: &retroanim::scene::Scene,
    anim: Option<usize>,
    time: f32,
) -> Vec<retroanim::scene::sample::Mat4> {
    use retroanim::scene::sample::{local_at, mat_mul};
    let a = anim.and_then(|k| scene.animations.get(k));
    (0..scene.nodes.len())
        .map(|i| {
            let mut m = local_at(scene, a, i, time).matrix();
            let mut p = scene.nodes[i].parent;
            while let Some(k) = p {
                m = mat_mul(&local_at(scene, a, k, time).matrix(), &m);
                p = scene.nodes[k].parent;
            }
            m
        })
        .collect()
}

/// A TOD with its TMD, played after the animations `after`, converted to GLB through
/// `retroanim::convert`.
pub fn tod_to_glb(
    anim: &retroanim::formats::tod::Tod,
    model: &retroanim::formats::tmd::Tmd,
    after: &[retroanim::formats::tod::Tod],
    geometry: retroanim::convert::Geometry,
) -> retroanim::convert::Conversion {
    use retroanim::convert::{convert, Options, TodInput};
    let opts = Options {
        geometry,
        tod: TodInput {
            tmd: Some(model.clone()),
            after: after.to_vec(),
            ..TodInput::default()
        },
        ..Options::default()
    };
    convert(
        &retroanim::Model::Tod(anim.clone()),
        retroanim::Format::Glb,
        &opts,
    )
    .unwrap()
}

/// The janken sample's model (TE.TMD) and its nine TODs, APPEAR.TOD (which creates the
/// objects the others move) first; `None` without the corpus.
pub fn janken() -> Option<(
    retroanim::formats::tmd::Tmd,
    Vec<(String, retroanim::formats::tod::Tod)>,
)> {
    use retroanim::formats::{tmd, tod};
    let tmds = corpus_files("TMD");
    let (_, tmd_path) = tmds
        .iter()
        .find(|(n, _)| n.ends_with("graphics/TOD/JANKEN/TMD/TE.TMD"))?;
    let model = tmd::read(&std::fs::read(tmd_path).unwrap()).unwrap();
    let dir = tmd_path.parent()?.parent()?.join("TOD");
    let mut tods: Vec<(String, tod::Tod)> = corpus_files("TOD")
        .into_iter()
        .filter(|(_, p)| p.parent() == Some(dir.as_path()))
        .map(|(n, p)| (n, tod::read(&std::fs::read(p).unwrap()).unwrap()))
        .collect();
    tods.sort_by_key(|(n, _)| !n.ends_with("APPEAR.TOD"));
    Some((model, tods))
}

/// The corpus files of a kind, one per distinct content: (name, bytes).
pub fn unique_files(kind: &str) -> Vec<(String, Vec<u8>)> {
    let mut seen = std::collections::BTreeSet::new();
    corpus_files(kind)
        .into_iter()
        .filter_map(|(n, p)| {
            let data = std::fs::read(p).unwrap();
            seen.insert(data.clone()).then_some((n, data))
        })
        .collect()
}

/// Players for an original HMD at sequence `k` and for its re-authored copy (whose one
/// sequence plays by default), for round-trip comparisons.
pub fn round_trip_players<'a>(
    old: &'a retroanim::formats::hmd::Hmd,
    k: Option<usize>,
    new: &'a retroanim::formats::hmd::Hmd,
) -> (
    retroanim::formats::hmd::Player<'a>,
    retroanim::formats::hmd::Player<'a>,
) {
    use retroanim::formats::hmd::{PlayOptions, Player};
    let old_p = Player::new(
        old,
        &PlayOptions {
            sequence: k,
            ..PlayOptions::default()
        },
    );
    (old_p, Player::new(new, &PlayOptions::default()))
}

/// Fails when `hmd::validate` finds errors in `h` (`what` names it).
pub fn hmd_no_errors(h: &retroanim::formats::hmd::Hmd, what: &str) {
    let errors: Vec<_> = retroanim::formats::hmd::validate(h)
        .into_iter()
        .filter(|i| i.severity == retroanim::report::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}");
}

/// The object IDs a TOD round trip gives the objects of `old`'s poses (old ID → new ID): the
/// same IDs, which the export keeps in its extras (docs/extras.md).
pub fn tod_ids_by_appearance(
    old: &[retroanim::formats::tod::Pose],
) -> std::collections::BTreeMap<u16, u16> {
    let mut ids: Vec<u16> = Vec::new();
    for p in old {
        for o in &p.objects {
            if !ids.contains(&o.id) {
                ids.push(o.id);
            }
        }
    }
    ids.iter().map(|&id| (id, id)).collect()
}

/// GLB → TOD (+ TMD in `extra`) at a TOD's resolution, as a round trip writes it back.
pub fn glb_to_tod(glb: &[u8], resolution: u16) -> retroanim::convert::Conversion {
    use retroanim::convert::{self, Options, TodInput};
    let back = Options {
        tod: TodInput {
            resolution: Some(resolution.max(1)),
            ..TodInput::default()
        },
        ..Options::default()
    };
    convert::convert_bytes(glb, None, retroanim::Format::Tod, &back).unwrap()
}
