//! Properties: any model writes and reads back to the same model; arbitrary bytes never panic.

use proptest::prelude::*;
use retroanim::formats::tod::{self, *};

fn opt<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

fn packet_data() -> impl Strategy<Value = (PacketData, u8)> {
    let v3 = any::<[i32; 3]>();
    let scale = (any::<i16>(), any::<i16>(), any::<i16>(), any::<u16>())
        .prop_map(|(x, y, z, pad)| Scale { x, y, z, pad });
    let color = any::<[u8; 4]>().prop_map(|[r, g, b, pad]| Color { r, g, b, pad });
    let id = (any::<u16>(), any::<u16>()).prop_map(|(id, pad)| IdValue { id, pad });
    prop_oneof![
        (any::<u32>(), any::<u32>(), 0u8..16)
            .prop_map(|(mask, value, f)| (PacketData::Attribute(Attribute { mask, value }), f)),
        (any::<bool>(), opt(v3), opt(scale), opt(v3)).prop_map(|(d, r, s, t)| (
            PacketData::Coordinate(Coordinate {
                differential: d,
                rotation: r,
                scale: s,
                translation: t
            }),
            0
        )),
        (id.clone(), 0u8..16).prop_map(|(v, f)| (PacketData::TmdId(v), f)),
        (id, 0u8..16).prop_map(|(v, f)| (PacketData::Parent(v), f)),
        (any::<[[i16; 3]; 3]>(), any::<u16>(), v3, 0u8..16)
            .prop_map(|(m, pad, t, f)| (PacketData::Matrix(Matrix { m, pad, t }), f)),
        (prop::collection::vec(any::<u32>(), 0..4), 0u8..16)
            .prop_map(|(words, f)| (PacketData::TmdData { words }, f)),
        (any::<bool>(), opt(v3), opt(color), 0u8..2).prop_map(|(d, dir, c, f)| (
            PacketData::Light(Light {
                differential: d,
                direction: dir,
                color: c
            }),
            f << 3
        )),
        (any::<bool>(), opt(any::<[i32; 6]>()), opt(any::<i32>())).prop_map(|(d, p, z)| (
            PacketData::Camera(Camera::LookAt(LookAtCamera {
                differential: d,
                position: p,
                z_angle: z
            })),
            0
        )),
        (any::<bool>(), opt(v3), opt(v3)).prop_map(|(d, r, t)| (
            PacketData::Camera(Camera::RotTrans(RotTransCamera {
                differential: d,
                rotation: r,
                translation: t
            })),
            0
        )),
        (0u8..16).prop_map(|c| (PacketData::ObjectControl(ObjectControl::from_code(c)), 0)),
        (9u8..16, 0u8..16, prop::collection::vec(any::<u32>(), 0..4))
            .prop_map(|(kind, flag, words)| (PacketData::Raw { kind, flag, words }, 0)),
    ]
}

fn packet() -> impl Strategy<Value = Packet> {
    (
        any::<u16>(),
        packet_data(),
        prop::collection::vec(any::<u32>(), 0..3),
    )
        .prop_map(|(object_id, (data, flag_reserved), extra_words)| {
            // Raw and TMD data packets own all their words: no extra words after them.
            let owns_all = matches!(data, PacketData::Raw { .. } | PacketData::TmdData { .. });
            Packet {
                object_id,
                data,
                flag_reserved,
                extra_words: if owns_all { Vec::new() } else { extra_words },
            }
        })
}

fn frame() -> impl Strategy<Value = Frame> {
    (
        any::<u32>(),
        prop::collection::vec(packet(), 0..8),
        prop::collection::vec(any::<u32>(), 0..3),
    )
        .prop_map(|(number, packets, extra_words)| Frame {
            number,
            packets,
            extra_words,
            size_override: None,
        })
}

fn model() -> impl Strategy<Value = Tod> {
    (
        any::<u8>(),
        any::<u16>(),
        prop::collection::vec(frame(), 0..6),
        prop::collection::vec(any::<u8>(), 0..7),
    )
        .prop_map(|(version, resolution, frames, trailing)| Tod {
            header: Header {
                version,
                resolution,
            },
            frames,
            trailing,
        })
}

proptest! {
    #[test]
    fn model_write_read_is_identity(t in model()) {
        let bytes = tod::write(&t).unwrap();
        prop_assert_eq!(bytes.len() % 4, t.trailing.len() % 4);
        let back = tod::read(&bytes).unwrap();
        prop_assert_eq!(&back, &t);
        // And JSON, the editing format, is lossless too.
        let json = retroanim::Model::Tod(t.clone()).to_json().unwrap();
        prop_assert_eq!(retroanim::Model::from_json(json.as_bytes()).unwrap(), retroanim::Model::Tod(t));
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..512)) {
        let mut b = b;
        if !b.is_empty() { b[0] = 0x50; }
        if let Ok(t) = tod::read(&b) {
            prop_assert_eq!(tod::write(&t).unwrap(), b);
        }
    }
}
