//! MDD reader: any bytes → Ok or Err, never a panic; what reads writes back identically, and the
//! streaming reader agrees with the whole-file reader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::mdd;

fuzz_target!(|data: &[u8]| {
    let whole = mdd::read(data);
    if let Ok(m) = &whole {
        let _ = mdd::validate(m);
        let written = mdd::write(m).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
    let limits = retroanim::Limits::default();
    let streamed = mdd::StreamReader::new(data, data.len() as u64, &limits).and_then(|mut r| {
        let mut buf = Vec::new();
        let mut frames = Vec::new();
        while let Some(block) = r.next_frame(&mut buf)? {
            if let mdd::Block::Frame { .. } = block {
                frames.push(buf.clone());
            }
        }
        Ok(frames)
    });
    if let (Ok(m), Ok(frames)) = (&whole, &streamed) {
        assert_eq!(&m.frames, frames, "streamed frames differ");
    }
    assert_eq!(whole.is_ok(), streamed.is_ok(), "readers disagree");
});
