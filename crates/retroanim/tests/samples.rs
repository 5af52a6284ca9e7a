//! The files under `samples/` are made by the project itself: this test regenerates each one from
//! its script with the library's own writer and checks the committed copy is identical
//! (`UPDATE_SAMPLES=1` rewrites them).

use std::path::Path;

use retroanim::formats::tod::{self, *};

/// Sine in 1/4096 units for a phase in 1/`period` turns, by Bhaskara I's integer approximation
/// (exact integer arithmetic, so the sample is the same on every machine).
fn sine_4096(phase: i64, period: i64) -> i64 {
    let p = phase.rem_euclid(period);
    let half = period / 2;
    let (x, sign) = if p < half { (p, 1) } else { (p - half, -1) };
    // sin(pi*x/half) ~ 16 x (half - x) / (5 half^2 - 4 x (half - x))
    let num = 16 * x * (half - x);
    let den = 5 * half * half - 4 * x * (half - x);
    sign * num * 4096 / den
}

/// A chain of four links hanging from a root, swinging about Z: frame 0 creates the links, gives
/// them a TMD ID, a parent and an absolute pose; later frames rotate each link; the last link
/// turns semi-transparent half-way and is killed on the final frame.
pub fn swinging_chain() -> Tod {
    const LINKS: u16 = 4;
    const FRAMES: u32 = 48;
    let mut frames = Vec::new();
    let mut first = Vec::new();
    for id in 1..=LINKS {
        first.push(Packet::new(
            id,
            PacketData::ObjectControl(ObjectControl::Create),
        ));
        first.push(Packet::new(id, PacketData::TmdId(IdValue::new(1))));
        if id > 1 {
            first.push(Packet::new(id, PacketData::Parent(IdValue::new(id - 1))));
        }
        first.push(Packet::new(
            id,
            PacketData::Coordinate(Coordinate {
                differential: false,
                rotation: Some([0, 0, 0]),
                scale: Some(Scale::ONE),
                // The PlayStation's Y points down: each link hangs 200 units below its parent.
                translation: Some([0, if id == 1 { 0 } else { 200 }, 0]),
            }),
        ));
    }
    frames.push(first);
    for f in 1..FRAMES {
        let mut packets = Vec::new();
        for id in 1..=LINKS {
            // 30 degrees at the root, less further down, each link a little late.
            let amplitude = 30 * 4096 / id as i64;
            let angle =
                amplitude * sine_4096(f as i64 * 4 - id as i64 * 3, FRAMES as i64 * 2) / 4096;
            packets.push(Packet::new(
                id,
                PacketData::Coordinate(Coordinate {
                    rotation: Some([0, 0, angle as i32]),
                    ..Coordinate::default()
                }),
            ));
        }
        if f == FRAMES / 2 {
            let a = Attribute::unchanged()
                .with(AttributeItem::SemiTransparency, 1)
                .with(AttributeItem::SemiTransparencyRate, 0);
            packets.push(Packet::new(LINKS, PacketData::Attribute(a)));
        }
        if f == FRAMES - 1 {
            packets.push(Packet::new(
                LINKS,
                PacketData::ObjectControl(ObjectControl::Kill),
            ));
        }
        frames.push(packets);
    }
    Tod {
        header: Header {
            version: 0,
            resolution: 2,
        },
        frames: frames
            .into_iter()
            .enumerate()
            .map(|(n, packets)| Frame {
                number: n as u32,
                packets,
                extra_words: Vec::new(),
                size_override: None,
            })
            .collect(),
        trailing: Vec::new(),
    }
}

fn check_sample(name: &str, bytes: &[u8]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    if std::env::var("UPDATE_SAMPLES").as_deref() == Ok("1") {
        std::fs::write(&path, bytes).unwrap();
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SAMPLES=1 writes it)", path.display()));
    assert!(
        committed == bytes,
        "{} is not what its script makes",
        path.display()
    );
}

#[test]
fn swing_tod_is_regenerated_identically() {
    let chain = swinging_chain();
    let issues = tod::validate(&chain);
    assert!(
        issues
            .iter()
            .all(|i| i.severity == retroanim::Severity::Info),
        "{issues:#?}"
    );
    let bytes = tod::write(&chain).unwrap();
    assert_eq!(tod::read(&bytes).unwrap(), chain);
    check_sample("swing.tod", &bytes);
}

#[test]
fn integer_sine_is_a_sine() {
    assert_eq!(sine_4096(0, 96), 0);
    assert_eq!(sine_4096(24, 96), 4096);
    assert_eq!(sine_4096(72, 96), -4096);
    assert!((sine_4096(8, 96) - 2048).abs() < 20, "sin 30° ~ 0.5");
}
