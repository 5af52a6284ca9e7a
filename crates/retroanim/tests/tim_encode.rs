//! PNG → TIM: back from what `convert x.tim x.png` gives, by the console's transparency rules,
//! at 4, 8 and 16 bpp, through the library conversion API.

mod common;

use retroanim::convert::{self, Options};
use retroanim::formats::tim::{self, DecodeOptions, Depth, Rgba, Stp, Tim};
use retroanim::{Error, Format};

fn to_png(t: &Tim, stp: Stp) -> (Rgba, Vec<u8>) {
    let rgba = t.to_rgba(&DecodeOptions { clut_row: 0, stp }).unwrap();
    let png = tim::encode_png(&rgba).unwrap();
    (rgba, png)
}

fn png_to_tim(png: &[u8], bpp: u8, at: (u16, u16)) -> (Tim, Vec<convert::Note>) {
    let mut o = Options::default();
    o.textures.bpp = Some(bpp);
    o.textures.vram = Some(at);
    let out = convert::convert_bytes(png, None, Format::Tim, &o).unwrap();
    (tim::read(&out.bytes).unwrap(), out.notes)
}

fn corpus_tims() -> Vec<(String, Tim)> {
    common::corpus_files("TIM")
        .into_iter()
        .filter_map(|(name, path)| {
            let t = tim::read(&std::fs::read(path).unwrap()).ok()?;
            Some((name, t))
        })
        .collect()
}

#[test]
fn sixteen_bit_tims_come_back_halfword_for_halfword() {
    let mut checked = 0;
    for (name, t) in corpus_tims() {
        if t.depth() != Some(Depth::Direct15) || t.image.width == 0 || t.image.height == 0 {
            continue;
        }
        // Semi-transparent decoding keeps the STP bit visible in alpha: nothing is lost.
        let (rgba, png) = to_png(&t, Stp::SemiTransparent);
        // Some files lie partly outside VRAM (the console wraps); ours must fit.
        let fits = t.image.x as usize + t.image.width as usize <= 1024
            && t.image.y as usize + t.image.height as usize <= 512;
        let at = if fits { (t.image.x, t.image.y) } else { (0, 0) };
        let (back, notes) = png_to_tim(&png, 16, at);
        assert!(notes.is_empty(), "{name}: {notes:?}");
        assert_eq!(back.image.data, t.image.data, "{name}");
        let (rgba2, png2) = to_png(&back, Stp::SemiTransparent);
        assert_eq!(rgba2, rgba, "{name}");
        assert_eq!(png2, png, "{name}: PNG → TIM → PNG is identical");
        checked += 1;
    }
    assert!(checked > 0 || common::corpus_files("TIM").is_empty());
}

#[test]
fn indexed_tims_come_back_pixel_for_pixel() {
    let mut checked = 0;
    for (name, t) in corpus_tims() {
        let bpp = match t.depth() {
            Some(Depth::Clut4) => 4,
            Some(Depth::Clut8) => 8,
            _ => continue,
        };
        if t.clut.is_none() || t.image.width == 0 || t.image.height == 0 {
            continue;
        }
        let (rgba, png) = to_png(&t, Stp::SemiTransparent);
        let fits = t.image.x as usize + t.image.width as usize <= 1024
            && t.image.y as usize + t.image.height as usize <= 512;
        let at = if fits { (t.image.x, t.image.y) } else { (0, 0) };
        let (back, notes) = png_to_tim(&png, bpp, at);
        // Colours from a CLUT fit a CLUT of the same size: no reduction, no rounding.
        assert!(notes.is_empty(), "{name}: {notes:?}");
        assert_eq!(back.depth(), t.depth());
        let (rgba2, _) = to_png(&back, Stp::SemiTransparent);
        assert_eq!(rgba2, rgba, "{name}");
        checked += 1;
        if checked >= 60 {
            break;
        }
    }
    assert!(checked > 0 || common::corpus_files("TIM").is_empty());
}

/// A 64 × 32 gradient with 2,048 distinct colours, a transparent corner and opaque black.
fn gradient() -> Rgba {
    let (w, h) = (64usize, 32usize);
    let mut pixels = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let p = match (x, y) {
                (0, 0) => [0, 0, 0, 0],
                (1, 0) => [0, 0, 0, 255],
                _ => [(x * 4) as u8, (y * 8) as u8, ((x + y) * 2) as u8, 255],
            };
            pixels.extend(p);
        }
    }
    Rgba {
        width: w,
        height: h,
        pixels,
    }
}

#[test]
fn palettes_are_reduced_and_the_error_reported() {
    let img = gradient();
    let png = tim::encode_png(&img).unwrap();
    for (bpp, max) in [(4u8, 16usize), (8, 256)] {
        let (t, notes) = png_to_tim(&png, bpp, (640, 0));
        let clut = t.clut.as_ref().unwrap();
        assert_eq!(clut.data.len(), max);
        let reduced = notes
            .iter()
            .find(|n| n.code == "palette-reduced")
            .unwrap_or_else(|| panic!("{bpp} bpp: {notes:?}"));
        let entries: usize = reduced
            .message
            .split("palette of ")
            .nth(1)
            .and_then(|s| s.split(':').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(entries <= max && entries > max / 2, "{}", reduced.message);
        let back = t.to_rgba(&DecodeOptions::default()).unwrap();
        // Transparency survives any reduction, and opaque black never becomes transparent.
        assert_eq!(&back.pixels[0..4], &[0, 0, 0, 0]);
        assert_eq!(back.pixels[7], 255);
        let worst = back
            .pixels
            .chunks_exact(4)
            .zip(img.pixels.chunks_exact(4))
            .map(|(a, b)| (0..3).map(|k| a[k].abs_diff(b[k])).max().unwrap())
            .max()
            .unwrap();
        // Reported error (after 5-bit rounding, up to 7 more) bounds what a user sees.
        let said: u8 = reduced
            .message
            .rsplit("by at most ")
            .next()
            .and_then(|s| s.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            worst <= said.saturating_add(7),
            "{bpp} bpp: {worst} > {said}"
        );
    }
}

#[test]
fn the_console_transparency_rules_hold_both_ways() {
    // alpha 0 → 0x0000; opaque black → 0x8000; half alpha → STP set; opaque colour → STP clear.
    assert_eq!(tim::color16([10, 20, 30, 0]), 0);
    assert_eq!(tim::color16([0, 0, 0, 255]), 0x8000);
    assert_eq!(tim::color16([248, 0, 0, 128]), 0x801F);
    assert_eq!(tim::color16([248, 0, 0, 255]), 0x001F);
    for c in [0u16, 0x8000, 0x801F, 0x001F, 0x7FFF, 0xFFFF] {
        assert_eq!(
            tim::color16(tim::color15(c, Stp::SemiTransparent)),
            c,
            "{c:#x}"
        );
    }
}

#[test]
fn bad_png_options_are_refused() {
    let png = tim::encode_png(&gradient()).unwrap();
    let mut o = Options::default();
    o.textures.bpp = Some(5);
    let e = convert::convert_bytes(&png, None, Format::Tim, &o).unwrap_err();
    assert!(matches!(e, Error::Option { option: "bpp", .. }), "{e}");
    let mut o = Options::default();
    o.textures.clut_at = Some((0, 480));
    let e = convert::convert_bytes(&png, None, Format::Tim, &o).unwrap_err();
    assert!(matches!(e, Error::Option { option: "clut", .. }), "{e}");
    let mut o = Options::default();
    o.textures.vram = Some((1000, 500));
    let e = convert::convert_bytes(&png, None, Format::Tim, &o).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
    // A PNG converts to TIM only.
    let e = convert::convert_bytes(&png, None, Format::Glb, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("png converts to tim"), "{e}");
    // A damaged PNG is an error, not a panic.
    let e = convert::convert_bytes(
        &png[..png.len() / 2],
        None,
        Format::Tim,
        &Options::default(),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("png:"), "{e}");
}

#[test]
fn odd_widths_are_padded_and_said() {
    let img = Rgba {
        width: 5,
        height: 2,
        pixels: vec![200; 5 * 2 * 4],
    };
    let png = tim::encode_png(&img).unwrap();
    let (t, notes) = png_to_tim(&png, 4, (640, 0));
    assert_eq!(t.image.width, 2, "5 pixels at 4 bpp take 2 halfwords");
    assert!(notes.iter().any(|n| n.code == "width-padded"), "{notes:?}");
}

/// A PNG whose header claims `w × h` RGBA pixels, with one tiny (wrong-length) IDAT chunk: what
/// an attacker sends, 100 bytes whatever the size claimed.
fn claimed_png(w: u32, h: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        let body: Vec<u8> = kind.iter().chain(data).copied().collect();
        c.extend(&body);
        c.extend(crc32(&body).to_be_bytes());
        c
    };
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &ihdr));
    png.extend(chunk(
        b"IDAT",
        &[0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    ));
    png.extend(chunk(b"IEND", &[]));
    png
}

#[test]
fn a_png_header_claiming_a_huge_image_is_refused_before_allocation() {
    let png = claimed_png(100_000, 100_000);
    assert_eq!(tim::png_dimensions(&png).unwrap(), (100_000, 100_000));
    // Decoding: the 40 GB it claims is over the byte limit, an error (it aborted before).
    let e = tim::decode_png(&png, &retroanim::Limits::default()).expect_err("40 GB");
    assert!(matches!(e, Error::LimitExceeded { .. }), "{e}");
    // PNG → TIM: the image cannot fit the VRAM at any depth, said from the header.
    for bpp in [4u8, 8, 16] {
        let mut o = Options::default();
        o.textures.bpp = Some(bpp);
        let e = convert::convert_bytes(&png, None, Format::Tim, &o).expect_err("too big");
        assert!(e.to_string().contains("does not fit the 1024 × 512"), "{e}");
    }
    // 4097 × 1 at 4 bpp is one pixel too wide; 4096 × 1 is refused only for its (bad) pixels.
    let mut o = Options::default();
    o.textures.bpp = Some(4);
    let e = convert::convert_bytes(&claimed_png(4097, 1), None, Format::Tim, &o).unwrap_err();
    assert!(e.to_string().contains("at most 4096"), "{e}");
    let e = convert::convert_bytes(&claimed_png(4096, 1), None, Format::Tim, &o).unwrap_err();
    assert!(!e.to_string().contains("does not fit"), "{e}");
}

#[test]
fn gltf_textures_sharing_one_image_decode_it_once() {
    use base64::Engine as _;
    let img = tim::encode_png(&Rgba {
        width: 2,
        height: 1,
        pixels: vec![255, 0, 0, 255, 0, 255, 0, 255],
    })
    .unwrap();
    let uri = format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&img)
    );
    let textures: Vec<_> = (0..12).map(|_| serde_json::json!({"source": 0})).collect();
    let materials: Vec<_> = (0..12)
        .map(|i| serde_json::json!({"pbrMetallicRoughness": {"baseColorTexture": {"index": i}}}))
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "images": [{"uri": uri}],
        "textures": textures,
        "materials": materials,
    });
    let imported =
        retroanim::import::gltf::read(gltf.to_string().as_bytes(), &Default::default()).unwrap();
    let scene = imported.scene;
    assert_eq!(scene.textures.len(), 1, "one image, one decoded texture");
    assert_eq!(scene.materials.len(), 12);
    assert!(scene.materials.iter().all(|m| m.texture == Some(0)));
    assert_eq!(&scene.textures[0].pixels[..4], &[255, 0, 0, 255]);
    // A glTF whose images together claim more than the byte limit is refused, not decoded.
    let big = base64::engine::general_purpose::STANDARD.encode(claimed_png(20_000, 20_000));
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "images": [{"uri": format!("data:image/png;base64,{big}")}, {"uri": format!("data:image/png;base64,{big}")}],
        "textures": [{"source": 0}, {"source": 1}],
    });
    let e = retroanim::import::gltf::read(gltf.to_string().as_bytes(), &Default::default())
        .expect_err("3.2 GB of pixels");
    assert!(matches!(e, Error::LimitExceeded { .. }), "{e}");
}
