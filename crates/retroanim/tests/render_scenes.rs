//! Pictures of HMD, P3D and glTF inputs (drawn through the neutral scene) and the GIF / WebP
//! files: what a user sees — the model covers the picture, an animation has the pictures it
//! should, they change when the model moves, and a GIF decodes with as many frames.

mod common;

use std::path::{Path, PathBuf};

use retroanim::render::{render_file, OutputKind, RenderOptions, View};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// Every frame of a PNG or APNG as RGBA8.
fn png_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut d = png::Decoder::new(bytes);
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d.read_info().unwrap();
    let n = r.info().animation_control().map_or(1, |a| a.num_frames);
    let mut out = Vec::new();
    for _ in 0..n {
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        out.push(buf);
    }
    out
}

/// Pixels of an RGBA frame that are not the background `bg` (8-bit, cut to 15 bits).
fn covered(rgba: &[u8], bg: [u8; 3]) -> usize {
    let widen = |c: u8| (c >> 3 << 3) | (c >> 5);
    let bg = bg.map(widen);
    rgba.chunks_exact(4).filter(|p| p[..3] != bg).count()
}

fn opts(output: OutputKind) -> RenderOptions {
    RenderOptions {
        view: View {
            width: 96,
            height: 96,
            background: [0, 0, 0],
            ..View::default()
        },
        output,
        ..RenderOptions::default()
    }
}

fn hmd_sample(tail: &str) -> Option<Vec<u8>> {
    let files = common::corpus_files("HMD");
    let found = files.iter().find(|(n, _)| n.ends_with(tail));
    if files.is_empty() {
        return None;
    }
    Some(
        std::fs::read(
            &found
                .unwrap_or_else(|| panic!("{tail} not in the corpus"))
                .1,
        )
        .unwrap(),
    )
}

#[test]
fn a_textured_hmd_at_rest_fills_its_picture_with_its_texels() {
    let Some(dino) = hmd_sample("HMD/SCEI/BASIC/DINO.HMD") else {
        return;
    };
    let r = render_file(&dino, &opts(OutputKind::Png)).unwrap();
    assert_eq!(r.frames, 1);
    let f = &png_frames(&r.bytes)[0];
    let n = covered(f, [0, 0, 0]);
    assert!(n > 96 * 96 / 20, "only {n} pixels drawn; {:?}", r.notes);
    // Textured from its image primitives: many colours, not one shade of grey.
    let colours: std::collections::HashSet<&[u8]> = f.chunks_exact(4).collect();
    assert!(colours.len() > 64, "{} colours", colours.len());
}

#[test]
fn an_hmd_sequence_becomes_pictures_that_move() {
    let Some(cube) = hmd_sample("HMD/SCEI/ANIM/ROTS/ROTS.HMD") else {
        return;
    };
    let mut o = opts(OutputKind::Png);
    o.frames = Some((0, 40));
    let r = render_file(&cube, &o).unwrap();
    assert_eq!(r.frames, 40);
    let frames = png_frames(&r.bytes);
    assert_eq!(frames.len(), 40);
    assert!(frames.iter().all(|f| covered(f, [0, 0, 0]) > 50));
    assert_ne!(frames[0], frames[39], "the model does not move");
    // A sequence the file does not have is refused, naming those it has.
    o.sequence = Some(99);
    let e = render_file(&cube, &o).unwrap_err().to_string();
    assert!(e.contains("sequence 99"), "{e}");
}

#[test]
fn a_p3d_lod_with_frames_is_one_picture_per_frame_and_a_gif_holds_them() {
    let flag = std::fs::read(sample("flag.p3d")).unwrap();
    let r = render_file(&flag, &opts(OutputKind::Png)).unwrap();
    assert_eq!(r.frames, 9, "{:?}", r.notes);
    let frames = png_frames(&r.bytes);
    assert!(frames.iter().all(|f| covered(f, [0, 0, 0]) > 500));
    assert_ne!(frames[0], frames[4], "the flag does not wave");

    let gif = render_file(&flag, &opts(OutputKind::Gif)).unwrap();
    let mut d = gif::DecodeOptions::new();
    d.set_color_output(gif::ColorOutput::RGBA);
    let mut d = d.read_info(&gif.bytes[..]).unwrap();
    let mut n = 0;
    while let Some(f) = d.read_next_frame().unwrap() {
        assert_eq!((f.width, f.height), (96, 96));
        // Flat-shaded 15-bit colours: the GIF keeps them exactly.
        assert_eq!(f.buffer.as_ref(), &frames[n][..]);
        n += 1;
    }
    assert_eq!(n, 9);

    // The same frames as an animated WebP (lossless: the pictures come back exactly).
    let webp = render_file(&flag, &opts(OutputKind::Webp)).unwrap();
    let mut d = image_webp::WebPDecoder::new(std::io::Cursor::new(&webp.bytes[..])).unwrap();
    assert!(d.is_animated());
    assert_eq!(d.num_frames() as usize, frames.len());
    let mut buf = vec![0u8; d.output_buffer_size().unwrap()];
    for f in &frames {
        d.read_frame(&mut buf).unwrap();
        assert_eq!(&buf, f);
    }
    // A LOD the model lacks names those it has.
    let mut o = opts(OutputKind::Png);
    o.lod = Some(12345.0);
    let e = render_file(&flag, &o).unwrap_err().to_string();
    assert!(e.contains("12345") && e.contains("LODs are"), "{e}");
    let mut o = opts(OutputKind::Png);
    o.sequence = Some(0);
    assert!(render_file(&flag, &o).is_err(), "--sequence is for HMDs");
}

#[test]
fn a_gltf_exported_by_retroanim_draws_as_its_tmd_does() {
    use retroanim::convert::{convert, Options};
    use retroanim::Format;
    let tmd_bytes = std::fs::read(sample("link.tmd")).unwrap();
    let tmd = retroanim::read_any(&tmd_bytes).unwrap();
    let glb = convert(&tmd, Format::Glb, &Options::default())
        .unwrap()
        .bytes;
    let mut o = opts(OutputKind::Png);
    o.view.yaw = Some(30.0);
    let from_glb = png_frames(&render_file(&glb, &o).unwrap().bytes).remove(0);
    let from_tmd = png_frames(&render_file(&tmd_bytes, &o).unwrap().bytes).remove(0);
    // The same silhouette, pixel for pixel within a 1 % margin (the glTF's vertices are
    // rescaled before they are rounded to 16 bits).
    let mask = |f: &[u8]| -> Vec<bool> { f.chunks_exact(4).map(|p| p[..3] != [0; 3]).collect() };
    let (a, b) = (mask(&from_glb), mask(&from_tmd));
    let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    let area = b.iter().filter(|x| **x).count();
    assert!(area > 500, "{area}");
    assert!(differ * 100 <= area, "{differ} of {area} pixels differ");

    // Its animation (TOD on its TMD, exported): pictures that move, at 30 per second.
    let tod = retroanim::read_any(&std::fs::read(sample("swing.tod")).unwrap()).unwrap();
    let mut copts = Options::default();
    copts.tod.tmd = match tmd {
        retroanim::Model::Tmd(t) => Some(t),
        _ => unreachable!(),
    };
    let glb = convert(&tod, Format::Glb, &copts).unwrap().bytes;
    let r = render_file(&glb, &opts(OutputKind::Gif)).unwrap();
    assert!(r.frames > 10, "{} pictures", r.frames);
    let mut d = gif::DecodeOptions::new();
    d.set_color_output(gif::ColorOutput::RGBA);
    let mut d = d.read_info(&r.bytes[..]).unwrap();
    let mut frames = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        frames.push(f.buffer.to_vec());
    }
    assert_eq!(frames.len(), r.frames);
    let least = frames.iter().map(|f| covered(f, [0, 0, 0])).min();
    assert!(least > Some(50), "{least:?} pixels");
    assert_ne!(frames[0], frames[frames.len() / 2]);
}

#[test]
fn a_still_webp_and_options_that_do_not_apply() {
    let flag = std::fs::read(sample("flag.p3d")).unwrap();
    let mut o = opts(OutputKind::Webp);
    o.frames = Some((0, 1));
    let r = render_file(&flag, &o).unwrap();
    assert_eq!(&r.bytes[8..12], b"WEBP");
    let tmd = std::fs::read(sample("link.tmd")).unwrap();
    let mut o = opts(OutputKind::Png);
    o.stream_id = Some(1);
    assert!(render_file(&tmd, &o).is_err(), "--stream-id is for HMDs");
}
