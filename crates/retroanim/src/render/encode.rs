//! Picture files from RGBA8 frames: PNG (APNG when animated), GIF (animated GIF) and WebP
//! (animated WebP when there is more than one frame).
//!
//! Frames are pulled one at a time from a callback and encoded as they come, so an animation
//! never holds more than one frame in memory.
//!
//! - **PNG**: 8-bit RGBA; more than one frame is an animated PNG (APNG) looping forever, each
//!   frame shown `1 / fps` seconds (the delay stored as the fraction 100 / (fps · 100)).
//! - **GIF**: a frame with at most 256 colours keeps them exactly (a framebuffer frame of a
//!   small model usually has far fewer: it is 15-bit); a frame with more is reduced to 256 by
//!   the `gif` crate's NeuQuant (speed 10). Fully transparent pixels (alpha 0, only in TIM
//!   pictures) get the transparent index. Delays are whole hundredths of a second
//!   (`round(100 / fps)`, at least 2: browsers slow shorter delays down to 1/10 s), looping
//!   forever.
//! - **WebP**: lossless (VP8L, `image-webp`'s encoder). More than one frame is an animated WebP
//!   (the RIFF layout of Google's container specification: a `VP8X` chunk with the animation
//!   and alpha flags, `ANIM` with a transparent background and loop count 0 = forever, then one
//!   `ANMF` chunk per frame holding that frame's `VP8L` chunk, each frame the whole canvas,
//!   drawn without blending onto the one before). Each frame lasts `round(1000 / fps)` ms, at
//!   least 20 ms (browsers slow shorter frames down).

use std::collections::HashMap;

use crate::bytes::{ByteOrder, Le, Writer};
use crate::error::{Error, Result};
use crate::Format;

use super::file::OutputKind;

/// RGBA8 frames of one size as a picture file of `kind`. `next(k)` gives frame k (its
/// `width × height × 4` bytes) for k in `0..count`.
pub fn encode_frames(
    kind: OutputKind,
    (width, height): (u32, u32),
    count: usize,
    fps: f64,
    mut next: impl FnMut(usize) -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    if count == 0 {
        return Err(Error::Parameter {
            what: "no frame to draw".into(),
        });
    }
    match kind {
        OutputKind::Png => png_frames((width, height), count, fps, next),
        OutputKind::Gif => gif_frames((width, height), count, fps, next),
        OutputKind::Webp if count > 1 => webp_frames((width, height), count, fps, next),
        OutputKind::Webp => webp_still(&next(0)?, width, height),
    }
}

/// One lossless WebP file.
fn webp_still(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    image_webp::WebPEncoder::new(&mut out)
        .encode(rgba, width, height, image_webp::ColorType::Rgba8)
        .map_err(|e| Error::Parameter {
            what: format!("WebP encoder: {e}"),
        })?;
    Ok(out)
}

/// Appends a RIFF chunk (`fourcc`, little-endian size, payload, a pad byte to an even size).
fn riff_chunk(out: &mut Writer<Le>, fourcc: &[u8; 4], payload: &[u8]) -> Result<()> {
    let size = u32::try_from(payload.len()).map_err(|_| too_large())?;
    out.bytes(fourcc);
    out.u32(size);
    out.bytes(payload);
    if payload.len() % 2 == 1 {
        out.u8(0);
    }
    Ok(())
}

fn too_large() -> Error {
    Error::Parameter {
        what: "the animated WebP would pass 4 GiB (RIFF sizes are 32-bit); draw fewer frames or a smaller picture".into(),
    }
}

/// A 24-bit little-endian field (WebP's canvas sizes, frame offsets and durations).
fn u24(out: &mut Writer<Le>, v: u32) {
    out.u16(v as u16);
    out.u8((v >> 16) as u8);
}

/// The image chunks (`ALPH`, `VP8 `, `VP8L`) of a still WebP file, as they go into an `ANMF`.
fn image_chunks(file: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 12usize;
    while let (Some(fourcc), Some(size)) = (file.get(at..at + 4), Le::u32_at(file, at + 4)) {
        let size = size as usize;
        let end = at + 8 + size + size % 2;
        let chunk = file.get(at..end.min(file.len())).unwrap_or(&[]);
        if matches!(fourcc, b"ALPH" | b"VP8 " | b"VP8L") {
            out.extend_from_slice(chunk);
        }
        at = end;
    }
    if out.is_empty() {
        return Err(Error::Parameter {
            what: "WebP encoder: no image chunk in its output".into(),
        });
    }
    Ok(out)
}

/// An animated WebP (module docs), frames encoded as they come.
fn webp_frames(
    (width, height): (u32, u32),
    count: usize,
    fps: f64,
    mut next: impl FnMut(usize) -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    // Canvas and frame sizes are 24-bit "minus one" fields.
    if width == 0 || height == 0 || width > 1 << 24 || height > 1 << 24 {
        return Err(Error::Parameter {
            what: format!("{width}×{height}: a WebP canvas is 1..=16777216 pixels a side"),
        });
    }
    let ms = (1000.0 / fps.max(1e-3))
        .round()
        .clamp(20.0, f64::from((1 << 24) - 1)) as u32;
    let mut body = Writer::le();
    body.bytes(b"WEBP");
    let mut vp8x = Writer::le();
    vp8x.bytes(&[0x10 | 0x02, 0, 0, 0]);
    u24(&mut vp8x, width - 1);
    u24(&mut vp8x, height - 1);
    riff_chunk(&mut body, b"VP8X", &vp8x.into_vec())?;
    // Background transparent (B, G, R, A = 0), loop forever.
    riff_chunk(&mut body, b"ANIM", &[0, 0, 0, 0, 0, 0])?;
    for k in 0..count {
        let still = webp_still(&next(k)?, width, height)?;
        let mut frame = Writer::with_capacity(16 + still.len());
        u24(&mut frame, 0);
        u24(&mut frame, 0);
        u24(&mut frame, width - 1);
        u24(&mut frame, height - 1);
        u24(&mut frame, ms);
        // Bit 1 set: do not blend onto the frame before (each frame is the whole canvas).
        frame.u8(0x02);
        frame.bytes(&image_chunks(&still)?);
        riff_chunk(&mut body, b"ANMF", &frame.into_vec())?;
    }
    let size = u32::try_from(body.len()).map_err(|_| too_large())?;
    let mut out = Writer::<Le>::with_capacity(8 + body.len());
    out.bytes(b"RIFF");
    out.u32(size);
    out.bytes(&body.into_vec());
    Ok(out.into_vec())
}

fn png_frames(
    (width, height): (u32, u32),
    count: usize,
    fps: f64,
    mut next: impl FnMut(usize) -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    let fail = |e: png::EncodingError| Error::Unencodable {
        format: Format::Png,
        what: e.to_string(),
    };
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    if count > 1 {
        let frames = u32::try_from(count).map_err(|_| Error::Parameter {
            what: format!("{count} pictures do not fit an APNG"),
        })?;
        enc.set_animated(frames, 0).map_err(fail)?;
        let den = (fps * 100.0).round().clamp(1.0, 65535.0) as u16;
        enc.set_frame_delay(100, den).map_err(fail)?;
    }
    let mut w = enc.write_header().map_err(fail)?;
    for k in 0..count {
        w.write_image_data(&next(k)?).map_err(fail)?;
    }
    w.finish().map_err(fail)?;
    Ok(out)
}

fn gif_frames(
    (width, height): (u32, u32),
    count: usize,
    fps: f64,
    mut next: impl FnMut(usize) -> Result<Vec<u8>>,
) -> Result<Vec<u8>> {
    let fail = |e: gif::EncodingError| Error::Parameter {
        what: format!("GIF encoder: {e}"),
    };
    let side = |v: u32| {
        u16::try_from(v).map_err(|_| Error::Parameter {
            what: format!("{v} pixels: a GIF side is at most 65535"),
        })
    };
    let (w, h) = (side(width)?, side(height)?);
    let delay = (100.0 / fps).round().clamp(2.0, 65535.0) as u16;
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &[]).map_err(fail)?;
        if count > 1 {
            enc.set_repeat(gif::Repeat::Infinite).map_err(fail)?;
        }
        for k in 0..count {
            let mut rgba = next(k)?;
            let mut frame = exact_palette(w, h, &rgba)
                .unwrap_or_else(|| gif::Frame::from_rgba_speed(w, h, &mut rgba, 10));
            frame.delay = delay;
            frame.dispose = gif::DisposalMethod::Background;
            enc.write_frame(&frame).map_err(fail)?;
        }
    }
    Ok(out)
}

/// A frame whose colours (at most 256, alpha 0 counted as one transparent colour) are kept
/// exactly; `None` when there are more.
fn exact_palette(w: u16, h: u16, rgba: &[u8]) -> Option<gif::Frame<'static>> {
    let mut index: HashMap<[u8; 4], u8> = HashMap::new();
    let mut palette = Vec::new();
    let mut transparent = None;
    let mut buffer = Vec::with_capacity(rgba.len() / 4);
    for px in rgba.chunks_exact(4) {
        let key = if px[3] == 0 {
            [0; 4]
        } else {
            [px[0], px[1], px[2], 255]
        };
        let i = match index.get(&key) {
            Some(&i) => i,
            None => {
                let i = u8::try_from(index.len()).ok()?;
                index.insert(key, i);
                palette.extend_from_slice(&key[..3]);
                if px[3] == 0 {
                    transparent = Some(i);
                }
                i
            }
        };
        buffer.push(i);
    }
    Some(gif::Frame {
        width: w,
        height: h,
        buffer: buffer.into(),
        palette: Some(palette),
        transparent,
        ..gif::Frame::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(n: usize) -> impl FnMut(usize) -> Result<Vec<u8>> {
        move |k| {
            let mut v = vec![0u8; 4 * 4 * 4];
            for (i, px) in v.chunks_exact_mut(4).enumerate() {
                px.copy_from_slice(&[(i * 16) as u8, (k * 40) as u8, 7, 255]);
            }
            assert!(k < n);
            Ok(v)
        }
    }

    #[test]
    fn gif_holds_every_frame_with_its_exact_colours() {
        let bytes = encode_frames(OutputKind::Gif, (4, 4), 3, 30.0, frames(3)).unwrap();
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut d = opts.read_info(&bytes[..]).unwrap();
        let mut n = 0;
        while let Some(f) = d.read_next_frame().unwrap() {
            assert_eq!(f.delay, 3);
            assert_eq!(&f.buffer[4..8], &[16, (n * 40) as u8, 7, 255]);
            n += 1;
        }
        assert_eq!(n, 3);
    }

    #[test]
    fn webp_is_still_for_one_frame_and_animated_for_several() {
        let one = encode_frames(OutputKind::Webp, (4, 4), 1, 30.0, frames(1)).unwrap();
        assert_eq!(&one[..4], b"RIFF");
        assert_eq!(&one[8..12], b"WEBP");
        let d = image_webp::WebPDecoder::new(std::io::Cursor::new(&one[..])).unwrap();
        assert!(!d.is_animated());

        let bytes = encode_frames(OutputKind::Webp, (4, 4), 3, 30.0, frames(3)).unwrap();
        let mut d = image_webp::WebPDecoder::new(std::io::Cursor::new(&bytes[..])).unwrap();
        assert!(d.is_animated());
        assert_eq!(d.dimensions(), (4, 4));
        assert_eq!(d.num_frames(), 3);
        let mut buf = vec![0u8; d.output_buffer_size().unwrap()];
        let mut want = frames(3);
        for k in 0..3 {
            // Lossless: every frame comes back pixel for pixel, 33 ms each at 30 fps.
            assert_eq!(d.read_frame(&mut buf).unwrap(), 33);
            assert_eq!(buf, want(k).unwrap(), "frame {k}");
        }
    }
}
