//! LAB source (the input split at the first NUL into a root file and an include file) through
//! the assembler with small limits: errors are fine, panics and runaway time or memory are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::lab;

fuzz_target!(|data: &[u8]| {
    let (root, inc) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let mut loader = lab::MemLoader::new();
    loader.insert("a.lab", root).insert("b.inc", inc);
    let options = lab::LabOptions {
        max_tokens: 1 << 16,
        max_output_bytes: 1 << 16,
        max_includes: 64,
        ..lab::LabOptions::default()
    };
    if let Ok(bytes) = lab::assemble("a.lab", &loader, &options) {
        // Whatever assembles and reads as HMD must disassemble to source that assembles back.
        if let Ok(text) = lab::disassemble_bytes(&bytes) {
            let again = lab::assemble_str("d.lab", &text, &lab::MemLoader::new(), &lab::LabOptions::default())
                .expect("disassembly assembles");
            assert_eq!(again, bytes);
        }
    }
});
