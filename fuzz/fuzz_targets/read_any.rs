//! Detection and every reader behind it, JSON models included: any bytes → a model or an error,
//! never a panic. A model that reads (from bytes or from JSON) validates, summarises and, for
//! TMDs, turns into meshes without indexing past its arrays.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::{Limits, Model};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_items: 1 << 16,
        max_bytes: 1 << 24,
        max_steps: 1 << 16,
        max_input_bytes: 1 << 24,
        ..Limits::default()
    };
    let _ = retroanim::plausible_start(data, limits.max_input_bytes);
    if let Ok(model) = retroanim::read_any_with(data, &limits) {
        let _ = model.validate();
        let _ = model.summary();
        if let Model::Tmd(t) = &model {
            let _ = t.meshes();
        }
        let _ = model.write();
    }
});
