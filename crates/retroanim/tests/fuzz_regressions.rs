//! Inputs that once crashed a fuzz target (or a command), kept under
//! `fuzz/regressions/<target>/`: each goes through what its target does, and must end in a model
//! or an error, never a panic. `scripts/fuzz` says where to put a new crash.

use std::path::Path;

use retroanim::Model;

#[test]
fn kept_crash_inputs_read_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut n = 0;
    for target in std::fs::read_dir(&root).expect("fuzz/regressions exists") {
        let target = target.unwrap().path();
        for input in std::fs::read_dir(&target).unwrap() {
            let input = input.unwrap().path();
            let data = std::fs::read(&input).unwrap();
            n += 1;
            // Every target's reader sits behind read_any; the checks after it are the
            // read_any target's.
            let _ = retroanim::plausible_start(&data, 1 << 28);
            if let Ok(model) = retroanim::read_any(&data) {
                let _ = model.validate();
                let _ = model.summary();
                if let Model::Tmd(t) = &model {
                    let _ = t.meshes();
                }
                let _ = model.write();
            }
        }
    }
    assert!(n > 0, "no regression inputs under {}", root.display());
}
