//! `retroanim scan PATH... --report DIR`: a report of corpus folders (with a folder of hostile
//! file names beside them) and of an ISO 9660 image the test builds with xorriso. `index.json`
//! has its documented shape, one asset per find of `scan --json`, every file it links exists,
//! and the extracted bytes are the container's bytes at the find's offset. Then headless
//! Chromium opens `index.html` from `file://` (`tools/report-check/check.mjs`): no console
//! errors, no request leaving `file://`, every picture (animated PNGs too) loads, one card per
//! asset, models of every kind have a picture and `animated` matches its frames, the kind
//! filters and the search box hide what they should. Its screenshot is the README's
//! (`docs/report.png`).

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use common::{corpus, retroanim, succeed};
use serde_json::Value;

/// The corpus folders the folder report covers: the janken TODs with their TMD, an HMD with
/// its TIMs, a game's textures.
fn corpus_folders() -> Option<Vec<PathBuf>> {
    let tod = corpus("graphics/TOD/TODVIEW/TE.TMD")?;
    let cube = corpus("HMD/SCEI/ANIM/CUBE0/CUBE0.HMD")?;
    let tims = corpus("nobori/data/ROOT/TIM/ARMOR.TIM")?;
    let tmdview = corpus("addons/graphics/TMDVIEW/DATA/CUBE4T.TMD")?;
    let dirs = [
        tod.parent()?.parent()?,
        cube.parent()?,
        tims.parent()?,
        tmdview.parent()?,
    ];
    // Canonical paths: the cards show them, and the README's screenshot too.
    Some(dirs.iter().map(|d| d.canonicalize().unwrap()).collect())
}

/// `scan --json` of `paths`: the finds (the summary line dropped).
fn scan_finds(paths: &[PathBuf]) -> Vec<Value> {
    let out = succeed(retroanim().arg("scan").args(paths).arg("--json"));
    let mut lines: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert!(lines.pop().unwrap().get("summary").is_some());
    lines
}

/// `scan PATHS --report DIR`, which must succeed; its `index.json`.
fn report(paths: &[PathBuf], dir: &Path) -> Value {
    succeed(retroanim().arg("scan").args(paths).arg("--report").arg(dir));
    serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap()
}

/// A path in `index.json` (relative to `dir`, no `..`), which must name an existing file.
fn linked(dir: &Path, v: &Value, what: &str) -> PathBuf {
    let rel = v
        .as_str()
        .unwrap_or_else(|| panic!("{what}: not a string: {v}"));
    let p = Path::new(rel);
    assert!(
        p.is_relative()
            && p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
            && !rel.contains('\\'),
        "{what}: {rel:?} is not a plain relative path"
    );
    let full = dir.join(p);
    assert!(full.is_file(), "{what}: {} does not exist", full.display());
    full
}

fn source_ref(v: &Value, what: &str, sized: bool) {
    assert!(v["path"].is_string(), "{what}: source.path");
    assert!(v["container"].is_string(), "{what}: source.container");
    assert!(v["offset"].is_u64(), "{what}: source.offset");
    if sized {
        assert!(v["size"].is_u64(), "{what}: source.size");
    }
}

/// A pairing: its source, its confidence, and (when it names one) an asset of `format` in the
/// report at that source.
fn pairing(v: &Value, what: &str, format: &str, assets: &[Value]) {
    source_ref(&v["source"], what, false);
    let c = v["confidence"].as_f64().unwrap_or(-1.0);
    assert!((0.0..=1.0).contains(&c), "{what}: confidence {c}");
    if let Some(id) = v.get("id") {
        let other = assets
            .iter()
            .find(|a| &a["id"] == id)
            .unwrap_or_else(|| panic!("{what}: pairs with {id}, which is no asset"));
        assert_eq!(other["format"], format, "{what}: {id}");
        for key in ["container", "offset"] {
            assert_eq!(other["source"][key], v["source"][key], "{what}: {id}");
        }
    }
}

/// The JSON chunk of a GLB file, or a `.gltf` (an animation on its model) whole.
fn glb_json(path: &Path) -> Value {
    let b = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gltf") {
        return serde_json::from_slice(&b).unwrap();
    }
    let len = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    assert_eq!(&b[16..20], b"JSON");
    serde_json::from_slice(&b[20..20 + len]).unwrap()
}

/// The asset whose container ends with `suffix`.
fn asset<'a>(index: &'a Value, suffix: &str) -> &'a Value {
    index["assets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["source"]["container"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("no asset in {suffix}"))
}

/// Checks `index` against the documented shape and the finds of `scan --json`, every linked
/// file, and the extracted bytes against the container bytes `container_bytes` gives.
fn check_index(
    index: &Value,
    dir: &Path,
    finds: &[Value],
    container_bytes: &dyn Fn(&str) -> Vec<u8>,
) {
    let assets = index["assets"].as_array().expect("assets is an array");
    assert_eq!(
        assets.len(),
        finds.len(),
        "one asset per find of scan --json"
    );
    assert!(!assets.is_empty());
    let mut ids = HashSet::new();
    for (a, f) in assets.iter().zip(finds) {
        let id = a["id"].as_str().expect("id is a string");
        assert!(ids.insert(id.to_ascii_lowercase()), "id {id} twice");
        let s = &a["source"];
        source_ref(s, id, true);
        for key in ["path", "container", "offset", "size", "format"] {
            let got = if key == "format" { &a[key] } else { &s[key] };
            assert_eq!(got, &f[key], "{id}: {key} differs from scan --json");
        }
        assert!(a["animated"].is_boolean(), "{id}: animated");
        for t in a["textures"].as_array().expect("textures is an array") {
            pairing(t, id, "tim", assets);
        }
        match &a["model"] {
            Value::Null => {}
            m => {
                pairing(m, id, "tmd", assets);
                assert!(
                    m["confidence"].as_f64().unwrap() >= 0.5,
                    "{id}: a model used below 0.5"
                );
            }
        }
        let file = linked(dir, &a["file"], id);
        let offset = s["offset"].as_u64().unwrap() as usize;
        let size = s["size"].as_u64().unwrap() as usize;
        let whole = container_bytes(s["container"].as_str().unwrap());
        assert!(
            std::fs::read(&file).unwrap() == whole[offset..offset + size],
            "{id}: the extracted bytes are not the container's at {offset}"
        );
        for key in ["preview", "glb", "png"] {
            if a[key].is_null() {
                continue;
            }
            let path = linked(dir, &a[key], id);
            let bytes = std::fs::read(&path).unwrap();
            if key == "glb" && path.extension().is_some_and(|e| e == "gltf") {
                // An animation on its model: its buffers are files beside it.
                let doc = glb_json(&path);
                assert_eq!(doc["asset"]["version"], "2.0", "{id}");
                for b in doc["buffers"].as_array().into_iter().flatten() {
                    let uri = b["uri"].as_str().unwrap();
                    let len = std::fs::metadata(path.parent().unwrap().join(uri))
                        .unwrap()
                        .len();
                    assert_eq!(Some(len), b["byteLength"].as_u64(), "{id}: {uri}");
                }
                continue;
            }
            let magic: &[u8] = if key == "glb" {
                b"glTF"
            } else {
                b"\x89PNG\r\n\x1a\n"
            };
            assert!(bytes.starts_with(magic), "{id}: {key} is not a {key} file");
        }
        // Every model, animation and texture the scanner finds converts, except an animation
        // with no model to drive (its GLB would hold no mesh): its card says why.
        let target = if a["format"] == "tim" { "png" } else { "glb" };
        if a["format"] == "tod" && a["model"].is_null() {
            assert!(a["glb"].is_null(), "{id}");
            assert!(
                a["no_preview"]
                    .as_str()
                    .is_some_and(|w| w.contains("an animation without a model")),
                "{id}: {:?}",
                a["no_preview"]
            );
        } else {
            assert!(
                !a[target].is_null(),
                "{id}: no {target}: {:?}",
                a["warnings"]
            );
        }
        if a["format"] == "tim" {
            assert!(!a["preview"].is_null(), "{id}: a texture without a picture");
        }
        // Models of every kind have a picture; `animated` says whether it moves.
        if ["tmd", "hmd", "p3d"].contains(&a["format"].as_str().unwrap()) {
            assert!(
                !a["preview"].is_null(),
                "{id}: no picture: {:?}",
                a["no_preview"]
            );
        }
        if !a["preview"].is_null() {
            let frames = apng_frames(&linked(dir, &a["preview"], id));
            assert_eq!(a["animated"], frames > 1, "{id}: animated, {frames} frames");
            assert!(frames <= 120, "{id}: {frames} frames");
        }
    }
}

/// The frames of a PNG (1) or an animated PNG.
fn apng_frames(path: &Path) -> u32 {
    let r = png::Decoder::new(std::fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    r.info().animation_control().map_or(1, |a| a.num_frames)
}

/// Runs the Chromium check on `dir`; `None` (said loudly; a failure with
/// `RETROANIM_REQUIRE_CORPUS=1`) when Chromium or playwright-core is missing.
fn browser_check(dir: &Path, shot: Option<&Path>) -> Option<Value> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/report-check");
    let chromium = std::env::var_os("CHROMIUM").unwrap_or("/usr/bin/chromium".into());
    let missing = if !tool.join("node_modules/playwright-core").is_dir() {
        Some(format!(
            "{} has no node_modules (run scripts/test)",
            tool.display()
        ))
    } else if !Path::new(&chromium).is_file() {
        Some(format!(
            "{} is missing (apt-get install chromium)",
            chromium.to_string_lossy()
        ))
    } else {
        None
    };
    if let Some(why) = missing {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "RETROANIM_REQUIRE_CORPUS=1 but the browser check cannot run: {why}"
        );
        eprintln!("\n*** SKIPPING the browser check: {why} ***\n");
        return None;
    }
    let out = dir.with_extension("check.json");
    let mut cmd = std::process::Command::new("node");
    cmd.arg(tool.join("check.mjs")).arg(dir).arg(&out);
    if let Some(s) = shot {
        cmd.arg(s);
    }
    let run = cmd.output().expect("cannot run node");
    assert!(
        run.status.success(),
        "check.mjs failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    Some(serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap())
}

/// What a person opening the page would notice, against `index`.
fn check_page(page: &Value, index: &Value) {
    for key in [
        "console_errors",
        "page_errors",
        "network",
        "failed_requests",
    ] {
        assert_eq!(page[key], serde_json::json!([]), "{key}");
    }
    let assets = index["assets"].as_array().unwrap();
    assert_eq!(
        page["cards"].as_u64(),
        Some(assets.len() as u64),
        "one card per asset"
    );
    let images = page["images"].as_array().unwrap();
    let with_preview = assets.iter().filter(|a| !a["preview"].is_null()).count();
    assert_eq!(images.len(), with_preview, "one picture per preview");
    for i in images {
        assert!(i["width"].as_u64().unwrap_or(0) > 0, "did not load: {i}");
    }
    for (kind, shown) in page["without_kind"].as_object().unwrap() {
        let n = assets
            .iter()
            .filter(|a| a["format"] == kind.as_str())
            .count();
        assert!(n > 0, "a filter for {kind}, which no asset is");
        assert_eq!(
            shown.as_u64(),
            Some((assets.len() - n) as u64),
            "{kind} filtered out"
        );
    }
    let kinds: HashSet<&str> = assets.iter().filter_map(|a| a["format"].as_str()).collect();
    assert_eq!(page["without_kind"].as_object().unwrap().len(), kinds.len());
    assert!(
        page["search"]["shown"].as_u64().unwrap() >= 1,
        "{}",
        page["search"]
    );
    assert_eq!(page["search"]["shown_for_nothing"].as_u64(), Some(0));
}

#[test]
fn report_of_corpus_folders_and_hostile_names_opens_in_a_browser() {
    let Some(mut folders) = corpus_folders() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // File names a page must not take for markup, and two that differ only in case.
    let hostile = tmp.path().join("names");
    std::fs::create_dir_all(&hostile).unwrap();
    let tim = std::fs::read(folders[1].join("PAT4.TIM")).unwrap();
    for name in [
        "<img src=x onerror=alert(1)>&amp;.tim",
        // A folder `<` makes the path hold `</script>`.
        "</script><script>alert(2)<!--.tim",
        "a\u{1b}[31m\nred.TIM",
        "A\u{1b}[31m\nRED.tim",
        &format!("{}.tim", "x".repeat(240)),
    ] {
        let path = hostile.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &tim).unwrap();
    }
    folders.push(hostile.clone());
    let dir = tmp.path().join("report");
    let index = report(&folders, &dir);
    let finds = scan_finds(&folders);
    check_index(&index, &dir, &finds, &|c| std::fs::read(c).unwrap());
    let ids: Vec<&str> = index["assets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| {
            a["source"]["path"]
                .as_str()
                .unwrap()
                .starts_with(hostile.to_str().unwrap())
        })
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 5, "{ids:?}");
    // The janken TOD beside its TMD plays on it: its GLB has the model's meshes, and one
    // without a model has none.
    let tod = asset(&index, "TODVIEW/JAANKEN.TOD");
    assert!(tod["model"]["source"]["container"]
        .as_str()
        .unwrap()
        .ends_with("TODVIEW/TE.TMD"));
    let with = glb_json(&dir.join(tod["glb"].as_str().unwrap()));
    assert!(!with["meshes"].as_array().unwrap().is_empty());
    // A textured TMD beside its TIMs: its GLB carries the matched textures.
    let tmd = asset(&index, "TMDVIEW/DATA/CUBE4T.TMD");
    assert!(!tmd["textures"].as_array().unwrap().is_empty());
    let with = glb_json(&dir.join(tmd["glb"].as_str().unwrap()));
    assert!(
        !with["images"].as_array().map_or(true, Vec::is_empty),
        "{with}"
    );
    // Animations are previewed moving: the janken TOD on its model, the HMD's sequence.
    for a in [tod, asset(&index, "CUBE0/CUBE0.HMD")] {
        assert_eq!(a["animated"], true, "{}: {:?}", a["id"], a["no_preview"]);
    }
    let Some(page) = browser_check(&dir, Some(&dir.join("shot.png"))) else {
        return;
    };
    check_page(&page, &index);
    // The README's picture: textured models and the janken TODs (no hostile names).
    let clean = tmp.path().join("readme");
    let index = report(&[folders[3].clone(), folders[0].clone()], &clean);
    let shot = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/report.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let page = browser_check(&clean, Some(&shot)).unwrap();
    check_page(&page, &index);
}

#[test]
fn report_of_a_disc_image() {
    let Some(folders) = corpus_folders() else {
        return;
    };
    if std::process::Command::new("xorriso")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("RETROANIM_REQUIRE_CORPUS").as_deref() != Ok("1"),
            "xorriso is not installed (scripts/test installs it)"
        );
        eprintln!("\n*** SKIPPING: xorriso is not installed ***\n");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    // Plain files under their kind, and the same files packed between filler in a blob, at
    // word-aligned offsets that are not sector-aligned.
    let picks = [
        (&folders[0], "TODVIEW/TE.TMD", "TMD/TE.TMD"),
        (&folders[0], "TODVIEW/JAANKEN.TOD", "TOD/JAANKEN.TOD"),
        (&folders[1], "CUBE0.HMD", "HMD/CUBE0.HMD"),
        (&folders[1], "PAT8.TIM", "TIM/PAT8.TIM"),
        (&folders[2], "ARMOR.TIM", "TIM/ARMOR.TIM"),
    ];
    let mut blob = vec![0x5Au8; 1004];
    let mut packed = Vec::new();
    for (folder, from, to) in picks {
        let data = std::fs::read(folder.join(from)).unwrap();
        let at = tree.join(to);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(&at, &data).unwrap();
        packed.push(blob.len() as u64);
        blob.extend_from_slice(&data);
        blob.extend(std::iter::repeat_n(0xA5u8, 1000));
    }
    std::fs::create_dir_all(tree.join("DATA")).unwrap();
    std::fs::write(tree.join("DATA/PACK.BIN"), &blob).unwrap();
    let iso = tmp.path().join("disc.iso");
    let out = std::process::Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-V", "RETROANIM", "-o"])
        .arg(&iso)
        .arg(&tree)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tmp.path().join("report");
    let paths = [iso.clone()];
    let index = report(&paths, &dir);
    let finds = scan_finds(&paths);
    // A container `disc.iso:/TIM/PAT8.TIM` is the tree's file of that path.
    let in_tree = |c: &str| {
        let (_, inner) = c.rsplit_once(":/").expect("a container inside the image");
        std::fs::read(tree.join(inner)).unwrap()
    };
    check_index(&index, &dir, &finds, &in_tree);
    let at: HashSet<(String, u64)> = index["assets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let s = &a["source"];
            (
                s["container"].as_str().unwrap().to_string(),
                s["offset"].as_u64().unwrap(),
            )
        })
        .collect();
    for o in packed {
        assert!(
            at.contains(&(format!("{}:/DATA/PACK.BIN", iso.display()), o)),
            "{o}"
        );
    }
    if let Some(page) = browser_check(&dir, None) {
        check_page(&page, &index);
    }
}
