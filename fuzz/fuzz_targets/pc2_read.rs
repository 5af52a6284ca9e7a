//! PC2 reader: any bytes → Ok or Err, never a panic; what reads writes back identically, and the
//! streaming reader agrees with the whole-file reader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::pc2;

fuzz_target!(|data: &[u8]| {
    let whole = pc2::read(data);
    if let Ok(p) = &whole {
        let _ = pc2::validate(p);
        let written = pc2::write(p).expect("a model read from bytes writes");
        assert_eq!(written, data, "round trip differs");
    }
    let streamed = pc2::StreamReader::new(data, &retroanim::Limits::default()).and_then(|mut r| {
        let mut buf = Vec::new();
        let mut frames = Vec::new();
        while r.next_frame(&mut buf)?.is_some() {
            frames.push(buf.clone());
        }
        Ok(frames)
    });
    if let (Ok(p), Ok(frames)) = (&whole, &streamed) {
        assert_eq!(&p.frames, frames, "streamed samples differ");
    }
});
