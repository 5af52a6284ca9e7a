//! The output rule (docs/safety.md, `retroanim::output`), through the binary: an output never
//! replaces an input of the same run, never any existing file without `--force`, never a FIFO
//! or device, and names that differ only in case are one name. Each case hashes every file
//! before and after (issue #38 items 1–3), and a property test runs random layouts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

use proptest::prelude::*;

mod common;
use common::retroanim;

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

/// Every file under `dir` (links not followed) with its content, for before/after checks.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else if meta.is_file() {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(p, target.to_string_lossy().as_bytes().to_vec());
            }
        }
    }
    out
}

/// Files of `before` whose content changed or that are gone.
fn changed(before: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<PathBuf> {
    before
        .iter()
        .filter(|(p, b)| {
            std::fs::symlink_metadata(p).is_err()
                || (std::fs::symlink_metadata(p).unwrap().is_file()
                    && std::fs::read(p).unwrap() != **b)
        })
        .map(|(p, _)| p.clone())
        .collect()
}

fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    retroanim().args(args).output().unwrap()
}

#[test]
fn out_dir_equal_to_the_input_folder_replaces_no_input() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("d");
    std::fs::create_dir(&d).unwrap();
    std::fs::copy(samples().join("checker.tim"), d.join("a.tim")).unwrap();
    // a.png: the same picture, so a.png → a.tim and a.tim → a.png would each replace the other.
    let o = run(&[
        "convert".as_ref(),
        d.join("a.tim").as_os_str(),
        d.join("a.png").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for force in [false, true] {
        let before = snapshot(&d);
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "convert".as_ref(),
            "-r".as_ref(),
            d.as_os_str(),
            "--out-dir".as_ref(),
            d.as_os_str(),
        ];
        if force {
            args.push("--force".as_ref());
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            changed(&before).is_empty(),
            "changed: {:?}",
            changed(&before)
        );
        // Both conversions were still made, under names that are no input's.
        let after = snapshot(&d);
        assert!(after.len() >= before.len() + 2, "{:?}", after.keys());
    }
}

#[test]
fn case_twins_get_distinct_outputs() {
    let t = tempfile::tempdir().unwrap();
    let e = t.path().join("e");
    std::fs::create_dir(&e).unwrap();
    std::fs::copy(samples().join("checker.tim"), e.join("a.tim")).unwrap();
    std::fs::copy(samples().join("checker.tim"), e.join("A.TIM")).unwrap();
    let out = t.path().join("out");
    let o = run(&[
        "convert".as_ref(),
        "-r".as_ref(),
        e.as_os_str(),
        "--out-dir".as_ref(),
        out.as_os_str(),
        "--to".as_ref(),
        "png".as_ref(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_lowercase())
        .collect();
    let distinct: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(distinct.len(), 2, "names differing only in case: {names:?}");
}

#[test]
fn an_existing_file_needs_force_and_a_fifo_never() {
    let t = tempfile::tempdir().unwrap();
    let tim = t.path().join("a.tim");
    std::fs::copy(samples().join("checker.tim"), &tim).unwrap();
    let out = t.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("a.png"), b"the user's own picture").unwrap();
    let args = |force: bool| {
        let mut v: Vec<&std::ffi::OsStr> = vec![
            "convert".as_ref(),
            tim.as_os_str(),
            "--out-dir".as_ref(),
            out.as_os_str(),
            "--to".as_ref(),
            "png".as_ref(),
        ];
        if force {
            v.push("--force".as_ref());
        }
        v
    };
    let o = run(&args(false));
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("exists already") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(out.join("a.png")).unwrap(),
        b"the user's own picture"
    );
    // Named output too.
    let o = run(&[
        "convert".as_ref(),
        tim.as_os_str(),
        out.join("a.png").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read(out.join("a.png")).unwrap(),
        b"the user's own picture"
    );
    let o = run(&args(true));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read(out.join("a.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    // A FIFO at the output's name: refused with --force, and nothing blocks.
    let fifo = t.path().join("fifo.png");
    assert!(Std::new("mkfifo").arg(&fifo).status().unwrap().success());
    let o = run(&[
        "convert".as_ref(),
        tim.as_os_str(),
        fifo.as_os_str(),
        "--force".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("a FIFO"));
    // No temporary file is left behind by any refusal.
    for dir in [t.path(), out.as_path()] {
        for e in std::fs::read_dir(dir).unwrap() {
            let name = e.unwrap().file_name();
            assert!(
                !name.to_string_lossy().starts_with(".retroanim-"),
                "{name:?} left"
            );
        }
    }
}

#[test]
fn the_report_replaces_nothing_of_the_users_and_never_follows_links() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::copy(samples().join("checker.tim"), src.join("a.tim")).unwrap();
    let rep = t.path().join("rep");
    std::fs::create_dir(&rep).unwrap();
    std::fs::write(rep.join("index.html"), b"my page").unwrap();
    let outside = t.path().join("outside.txt");
    std::fs::write(&outside, b"not the report's").unwrap();
    std::os::unix::fs::symlink(&outside, rep.join("index.json")).unwrap();
    let before = snapshot(t.path());
    let o = run(&[
        "scan".as_ref(),
        src.as_os_str(),
        "--report".as_ref(),
        rep.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not empty") && err.contains("--force"),
        "{err}"
    );
    assert!(changed(&before).is_empty(), "{:?}", changed(&before));
    assert_eq!(
        snapshot(t.path()).len(),
        before.len(),
        "nothing new written"
    );
    // With --force the report's own names are replaced; the link's target is not written.
    let o = run(&[
        "scan".as_ref(),
        src.as_os_str(),
        "--report".as_ref(),
        rep.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&outside).unwrap(), b"not the report's");
    assert_eq!(
        std::fs::read(src.join("a.tim")).unwrap(),
        before[&src.join("a.tim")]
    );
    assert!(std::fs::read_to_string(rep.join("index.html"))
        .unwrap()
        .contains("<html"));
}

/// A cue sheet with a data track (`game.bin`) and an audio track (`audio.bin`), beside an
/// unrelated `audio.cue`; `None` without xorriso (loudly, unless the corpus is required).
fn two_track_cue(dir: &Path) -> Option<PathBuf> {
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::copy(samples().join("checker.tim"), tree.join("CHECKER.TIM")).unwrap();
    if !common::raw_disc(
        &tree,
        &dir.join("game.iso"),
        &dir.join("game.bin"),
        &["-no-pad"],
        "the patch output test",
    ) {
        return None;
    }
    std::fs::write(dir.join("audio.bin"), vec![0x5Au8; 2352 * 4]).unwrap();
    std::fs::write(dir.join("audio.cue"), b"the user's other cue sheet").unwrap();
    let cue = dir.join("game.cue");
    std::fs::write(
        &cue,
        "FILE \"game.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n\
         FILE \"audio.bin\" BINARY\n  TRACK 02 AUDIO\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    Some(cue)
}

#[test]
fn patch_never_writes_over_a_file_of_the_image_or_an_unnamed_cue() {
    let t = tempfile::tempdir().unwrap();
    let Some(cue) = two_track_cue(t.path()) else {
        return;
    };
    let new_tim = t.path().join("new.tim");
    let mut tim = std::fs::read(samples().join("checker.tim")).unwrap();
    let n = tim.len();
    tim[n - 1] ^= 0xFF;
    std::fs::write(&new_tim, &tim).unwrap();
    let before = snapshot(t.path());
    let patch = |out: &Path, force: bool| {
        let mut a: Vec<&std::ffi::OsStr> = vec![
            "patch".as_ref(),
            cue.as_os_str(),
            "--replace".as_ref(),
            "/CHECKER.TIM+0".as_ref(),
            new_tim.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        if force {
            a.push("--force".as_ref());
        }
        run(&a)
    };
    // The audio track's file (and a hard link to it) as OUT, with or without --force.
    let link = t.path().join("link.bin");
    std::fs::hard_link(t.path().join("audio.bin"), &link).unwrap();
    let before_link = snapshot(t.path());
    for out in [
        t.path().join("audio.bin"),
        link.clone(),
        t.path().join("game.bin"),
    ] {
        for force in [false, true] {
            let o = patch(&out, force);
            assert_eq!(o.status.code(), Some(2), "{}", out.display());
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("the image is made of"), "{err}");
            assert!(
                changed(&before_link).is_empty(),
                "{:?}",
                changed(&before_link)
            );
        }
    }
    drop(before);
    // A new OUT whose cue sheet name exists: the image is written, the cue sheet left (noted).
    std::fs::write(t.path().join("new.cue"), b"keep me").unwrap();
    let o = patch(&t.path().join("new.bin"), false);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(t.path().join("new.cue")).unwrap(), b"keep me");
    assert!(String::from_utf8_lossy(&o.stderr).contains("not replaced"));
    // Named as the output, the cue sheet is written: an existing image file needs --force.
    let o = patch(&t.path().join("new.cue"), false);
    assert_eq!(o.status.code(), Some(2), "new.cue holds the user's text");
    let o = patch(&t.path().join("new.cue"), true);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(t.path().join("new.cue")).unwrap();
    assert!(
        text.contains("new.bin") && text.contains("audio.bin"),
        "{text}"
    );
}

/// One random layout: inputs (TIMs and their PNGs, case twins, links to them) in a folder, an
/// output folder (the input folder itself or another) with unrelated files, some of them at the
/// names outputs would take.
#[derive(Debug, Clone)]
struct Layout {
    stems: Vec<String>,
    twins: Vec<bool>,
    pngs: Vec<bool>,
    links: Vec<bool>,
    same_dir: bool,
    squatters: Vec<bool>,
    force: bool,
}

fn layout() -> impl Strategy<Value = Layout> {
    (1usize..4).prop_flat_map(|n| {
        (
            proptest::collection::vec("[a-c]{1,2}", n),
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec(any::<bool>(), n),
            any::<bool>(),
            proptest::collection::vec(any::<bool>(), n),
            any::<bool>(),
        )
            .prop_map(
                |(stems, twins, pngs, links, same_dir, squatters, force)| Layout {
                    stems,
                    twins,
                    pngs,
                    links,
                    same_dir,
                    squatters,
                    force,
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// No pre-existing file changes without --force; with it, no input changes (only unrelated
    /// files at an output's name may be replaced).
    #[test]
    fn no_pre_existing_file_changes_without_force(l in layout()) {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("in");
        std::fs::create_dir(&d).unwrap();
        let tim = std::fs::read(samples().join("checker.tim")).unwrap();
        for (i, stem) in l.stems.iter().enumerate() {
            let _ = std::fs::write(d.join(format!("{stem}.tim")), &tim);
            if l.twins[i] {
                let _ = std::fs::write(d.join(format!("{}.TIM", stem.to_uppercase())), &tim);
            }
            if l.pngs[i] {
                let _ = std::fs::write(d.join(format!("{stem}.png")), b"\x89PNG not really");
            }
            if l.links[i] {
                let _ = std::os::unix::fs::symlink(d.join(format!("{stem}.tim")), d.join(format!("{stem}_l.tim")));
            }
        }
        let out = if l.same_dir { d.clone() } else { t.path().join("out") };
        std::fs::create_dir_all(&out).unwrap();
        for (i, stem) in l.stems.iter().enumerate() {
            if l.squatters[i] {
                let _ = std::fs::write(out.join(format!("{stem}.json")), b"unrelated");
            }
        }
        let inputs = snapshot(&d);
        let before = snapshot(t.path());
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "convert".as_ref(), "-r".as_ref(), d.as_os_str(), "--out-dir".as_ref(),
            out.as_os_str(), "--to".as_ref(), "json".as_ref(),
        ];
        if l.force {
            args.push("--force".as_ref());
        }
        let _ = run(&args);
        if l.force {
            prop_assert!(changed(&inputs).is_empty(), "inputs changed: {:?}", changed(&inputs));
        } else {
            prop_assert!(changed(&before).is_empty(), "changed: {:?}", changed(&before));
        }
    }
}
