//! TIM: hand-built images of every depth, decoded pixel by pixel; write/read identity.

use proptest::prelude::*;
use retroanim::formats::tim::{self, Block, DecodeOptions, Stp, Tim};

fn block(width: u16, height: u16, data: Vec<u16>) -> Block {
    Block {
        x: 0,
        y: 0,
        width,
        height,
        data,
        extra: vec![],
    }
}

fn tim(pmode: u8, clut: Option<Block>, image: Block) -> Tim {
    Tim {
        version: 0,
        id_reserved: 0,
        pmode,
        flags_reserved: 0,
        clut,
        image,
        trailing: vec![],
    }
}

/// Writes, reads back (the bytes must survive), decodes.
fn decode(t: &Tim, clut_row: usize, stp: Stp) -> tim::Rgba {
    let bytes = tim::write(t).unwrap();
    let back = tim::read(&bytes).unwrap();
    assert_eq!(&back, t);
    back.to_rgba(&DecodeOptions { clut_row, stp }).unwrap()
}

fn px(img: &tim::Rgba, x: usize, y: usize) -> [u8; 4] {
    let i = (y * img.width + x) * 4;
    img.pixels[i..i + 4].try_into().unwrap()
}

const RED: u16 = 0x001F;
const GREEN_STP: u16 = 0x83E0;
const OPAQUE_BLACK: u16 = 0x8000;
const TRANSPARENT: u16 = 0x0000;
const GREY: u16 = 10 | 10 << 5 | 10 << 10;

#[test]
fn header_bytes_follow_the_manual() {
    let t = tim(
        0,
        Some(block(16, 1, vec![0; 16])),
        block(1, 1, vec![0x3210]),
    );
    let b = tim::write(&t).unwrap();
    assert_eq!(&b[..8], &[0x10, 0, 0, 0, 0x08, 0, 0, 0]);
    // CLUT bnum = 12 + 32 bytes; then DX DY W H.
    assert_eq!(&b[8..20], &[44, 0, 0, 0, 0, 0, 0, 0, 16, 0, 1, 0]);
    assert_eq!(b.len(), 8 + 44 + 12 + 2);
}

#[test]
fn four_bit_with_clut_low_nibble_first_and_stacked_cluts() {
    let mut clut = vec![0u16; 32];
    clut[..4].copy_from_slice(&[TRANSPARENT, RED, GREEN_STP, OPAQUE_BLACK]);
    clut[16..20].copy_from_slice(&[GREY, GREY, GREY, RED]);
    let t = tim(
        0,
        Some(block(16, 2, clut)),
        block(1, 2, vec![0x3210, 0x0123]),
    );
    let img = decode(&t, 0, Stp::Opaque);
    assert_eq!((img.width, img.height), (4, 2));
    assert_eq!(px(&img, 0, 0), [0, 0, 0, 0], "0x0000 is transparent");
    assert_eq!(px(&img, 1, 0), [255, 0, 0, 255]);
    assert_eq!(px(&img, 2, 0), [0, 255, 0, 255], "STP ignored without ABE");
    assert_eq!(px(&img, 3, 0), [0, 0, 0, 255], "0x8000 is opaque black");
    assert_eq!(px(&img, 0, 1), [0, 0, 0, 255]);
    assert_eq!(px(&img, 3, 1), [0, 0, 0, 0]);
    let semi = decode(&t, 0, Stp::SemiTransparent);
    assert_eq!(
        px(&semi, 2, 0),
        [0, 255, 0, 128],
        "STP semi-transparent under ABE"
    );
    assert_eq!(px(&semi, 1, 0), [255, 0, 0, 255]);
    assert_eq!(px(&semi, 0, 0), [0, 0, 0, 0]);
    let second = decode(&t, 1, Stp::Opaque);
    // 10 → (10 << 3) | (10 >> 2) = 82, as ImageMagick and the emulators widen 5 bits.
    assert_eq!(px(&second, 0, 0), [82, 82, 82, 255]);
    assert_eq!(px(&second, 3, 0), [255, 0, 0, 255]);
    // Row 2 does not exist: an error naming the rows there are, not a transparent image.
    let err = t
        .to_rgba(&DecodeOptions {
            clut_row: 2,
            stp: Stp::Opaque,
        })
        .expect_err("the TIM has two CLUT rows");
    assert!(matches!(err, retroanim::Error::Parameter { .. }), "{err}");
    assert!(err.to_string().contains("CLUT rows 0..=1"), "{err}");
}

#[test]
fn every_five_bit_level_widens_to_the_full_range_and_back() {
    // 0 → 0 and 31 → 255 (white is white), evenly between, and PNG → TIM gives the same 5 bits.
    for v in 0..32u16 {
        let c = v | v << 5 | v << 10 | 0x8000;
        let [r, g, b, _] = tim::color15(c, Stp::Opaque);
        let want = ((v as f64) * 255.0 / 31.0).round();
        assert!((f64::from(r) - want).abs() <= 2.0, "{v}: {r} vs {want}");
        assert_eq!((r, g), (b, b));
        assert_eq!(tim::color16([r, g, b, 255]) & 0x7FFF, c & 0x7FFF, "{v}");
    }
    assert_eq!(tim::color15(0x7FFF, Stp::Opaque), [255, 255, 255, 255]);
}

#[test]
fn eight_bit_with_clut_low_byte_first() {
    let mut clut = vec![0u16; 256];
    clut[1] = RED;
    clut[255] = GREEN_STP;
    let t = tim(1, Some(block(256, 1, clut)), block(1, 1, vec![0xFF01]));
    let img = decode(&t, 0, Stp::SemiTransparent);
    assert_eq!((img.width, img.height), (2, 1));
    assert_eq!(px(&img, 0, 0), [255, 0, 0, 255]);
    assert_eq!(px(&img, 1, 0), [0, 255, 0, 128]);
}

#[test]
fn clut_image_without_clut_block_is_transparent_and_reported() {
    let t = tim(1, None, block(1, 1, vec![0x0101]));
    let img = decode(&t, 0, Stp::Opaque);
    assert_eq!(img.pixels, [0; 8]);
    assert!(tim::validate(&t).iter().any(|i| i.code == "missing-clut"));
    let err = t
        .to_rgba(&DecodeOptions {
            clut_row: 1,
            stp: Stp::Opaque,
        })
        .expect_err("no CLUT at all");
    assert!(err.to_string().contains("the TIM has no CLUT"), "{err}");
}

#[test]
fn sixteen_bit_direct_with_and_without_stp() {
    let data = vec![RED, GREEN_STP, OPAQUE_BLACK, TRANSPARENT, 0x7C00, 0xFFFF];
    for clut in [None, Some(block(16, 1, vec![RED; 16]))] {
        let t = tim(2, clut, block(3, 2, data.clone()));
        let img = decode(&t, 0, Stp::Opaque);
        assert_eq!((img.width, img.height), (3, 2));
        assert_eq!(px(&img, 0, 0), [255, 0, 0, 255]);
        assert_eq!(px(&img, 1, 0), [0, 255, 0, 255]);
        assert_eq!(px(&img, 2, 0), [0, 0, 0, 255]);
        assert_eq!(px(&img, 0, 1), [0, 0, 0, 0]);
        assert_eq!(px(&img, 1, 1), [0, 0, 255, 255]);
        let semi = decode(&t, 0, Stp::SemiTransparent);
        assert_eq!(px(&semi, 1, 0), [0, 255, 0, 128]);
        assert_eq!(px(&semi, 2, 1), [255, 255, 255, 128]);
        assert_eq!(
            px(&semi, 2, 0),
            [0, 0, 0, 128],
            "0x8000 blends as black under ABE"
        );
    }
}

#[test]
fn twenty_four_bit_packs_two_pixels_in_three_halfwords_and_pads_rows() {
    // R0 G0 | B0 R1 | G1 B1 per row, little-endian halfwords.
    let row = |a: [u8; 3], b: [u8; 3]| {
        vec![
            u16::from_le_bytes([a[0], a[1]]),
            u16::from_le_bytes([a[2], b[0]]),
            u16::from_le_bytes([b[1], b[2]]),
        ]
    };
    let mut data = row([1, 2, 3], [4, 5, 6]);
    data.extend(row([7, 8, 9], [10, 11, 12]));
    let t = tim(3, None, block(3, 2, data.clone()));
    let img = decode(&t, 0, Stp::SemiTransparent);
    assert_eq!((img.width, img.height), (2, 2));
    assert_eq!(px(&img, 0, 0), [1, 2, 3, 255]);
    assert_eq!(px(&img, 1, 0), [4, 5, 6, 255]);
    assert_eq!(px(&img, 1, 1), [10, 11, 12, 255]);
    // A stride of 4 halfwords (8 bytes) holds 2 pixels and 2 padding bytes per row.
    let mut padded = row([1, 2, 3], [4, 5, 6]);
    padded.push(0xEEEE);
    padded.extend(row([7, 8, 9], [10, 11, 12]));
    padded.push(0xEEEE);
    let img = decode(&tim(3, None, block(4, 2, padded)), 0, Stp::Opaque);
    assert_eq!((img.width, img.height), (2, 2));
    assert_eq!(px(&img, 0, 1), [7, 8, 9, 255]);
}

#[test]
fn png_output_carries_the_same_pixels() {
    let t = tim(2, None, block(2, 1, vec![RED, TRANSPARENT]));
    let img = t.to_rgba(&DecodeOptions::default()).unwrap();
    let png_bytes = tim::encode_png(&img).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (2, 1));
    assert_eq!(&buf[..info.buffer_size()], &[255, 0, 0, 255, 0, 0, 0, 0]);
}

#[test]
fn truncated_and_short_bnum_files_fail_with_offsets() {
    let t = tim(
        0,
        Some(block(16, 1, vec![RED; 16])),
        block(2, 2, vec![0x1111; 4]),
    );
    let bytes = tim::write(&t).unwrap();
    for n in 0..bytes.len() {
        let e = tim::read(&bytes[..n]).unwrap_err();
        assert!(e.offset().is_some_and(|o| o <= n as u64), "{n}: {e}");
    }
    let mut short = bytes.clone();
    short[8] = 20; // CLUT bnum smaller than its 16 entries
    let e = tim::read(&short).unwrap_err();
    assert_eq!(e.offset(), Some(8), "{e}");
}

fn arb_block(max_w: u16) -> impl Strategy<Value = Block> {
    (
        0..max_w,
        0u16..4,
        any::<u16>(),
        any::<u16>(),
        prop::collection::vec(any::<u8>(), 0..4),
    )
        .prop_flat_map(|(w, h, x, y, extra)| {
            prop::collection::vec(any::<u16>(), (w as usize) * (h as usize)).prop_map(move |data| {
                Block {
                    x,
                    y,
                    width: w,
                    height: h,
                    data,
                    extra: extra.clone(),
                }
            })
        })
}

proptest! {
    #[test]
    fn model_write_read_is_identity(
        pmode in 0u8..8,
        clut in prop::option::of(arb_block(20)),
        image in arb_block(12),
        trailing in prop::collection::vec(any::<u8>(), 0..6),
        version in any::<u8>(),
    ) {
        let t = Tim { version, id_reserved: 0, pmode, flags_reserved: 0, clut, image, trailing };
        let bytes = tim::write(&t).unwrap();
        prop_assert_eq!(tim::read(&bytes).unwrap(), t);
    }

    #[test]
    fn arbitrary_bytes_never_panic(mut data in prop::collection::vec(any::<u8>(), 0..200)) {
        if data.len() > 1 { data[0] = 0x10; }
        if let Ok(t) = tim::read(&data) {
            prop_assert_eq!(tim::write(&t).unwrap(), data);
            let _ = t.to_rgba(&DecodeOptions::default());
            let _ = tim::validate(&t);
        }
    }
}
