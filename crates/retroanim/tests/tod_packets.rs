//! Every TOD packet type and flag combination, from bytes built by hand from the seed's tables
//! (not by our writer), read into the typed model, checked field by field, and written back.

use retroanim::formats::tod::{self, *};
use retroanim::{report::has_errors, Error, Severity};

/// A packet header word: bits 0..15 object ID, 16..19 type, 20..23 flag, 24..31 length.
fn hdr(object: u16, kind: u32, flag: u32, len: u32) -> u32 {
    object as u32 | kind << 16 | flag << 20 | len << 24
}

/// A packet: header plus data words; the length counts the header.
fn packet(object: u16, kind: u32, flag: u32, data: &[u32]) -> Vec<u32> {
    let mut v = vec![hdr(object, kind, flag, data.len() as u32 + 1)];
    v.extend_from_slice(data);
    v
}

/// A file with one frame per entry (frame number, packets), frame sizes computed by hand.
fn file(resolution: u16, frames: &[(u32, Vec<Vec<u32>>)]) -> Vec<u8> {
    let mut words = vec![0x50 | (resolution as u32) << 16, frames.len() as u32];
    for (number, packets) in frames {
        let size = 2 + packets.iter().map(Vec::len).sum::<usize>();
        words.push(size as u32 | (packets.len() as u32) << 16);
        words.push(*number);
        for p in packets {
            words.extend_from_slice(p);
        }
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Reads a one-packet file and returns the packet, checking the byte-exact round trip.
fn one(p: Vec<u32>) -> Packet {
    let bytes = file(1, &[(0, vec![p])]);
    let t = tod::read(&bytes).unwrap();
    assert_eq!(tod::write(&t).unwrap(), bytes, "round trip");
    t.frames[0].packets[0].clone()
}

#[test]
fn header_fields() {
    let bytes = file(4, &[(7, vec![packet(3, 8, 0, &[])])]);
    let t = tod::read(&bytes).unwrap();
    assert_eq!(
        t.header,
        Header {
            version: 0,
            resolution: 4
        }
    );
    assert_eq!(t.frames.len(), 1);
    assert_eq!(t.frames[0].number, 7);
    assert_eq!(t.ticks_per_frame(), 4);
    assert!((t.summary().duration_seconds - 8.0 * 4.0 / 60.0).abs() < 1e-9);
}

#[test]
fn attribute_seed_example_forces_lighting() {
    let p = one(packet(9, 0, 0, &[0xffff_ffbf, 0x0000_0040]));
    let PacketData::Attribute(a) = p.data else {
        panic!("{p:?}")
    };
    assert_eq!(a.get(AttributeItem::ForceLighting), Some(1));
    for item in AttributeItem::ALL {
        if item != AttributeItem::ForceLighting {
            assert_eq!(a.get(item), None, "{item:?}");
        }
    }
    assert_eq!(a.apply(0x8000_0001), 0x8000_0041);
    assert_eq!(
        Attribute::unchanged().with(AttributeItem::ForceLighting, 1),
        a,
        "the builder gives the seed's words"
    );
}

#[test]
fn attribute_items_cover_the_bit_table() {
    // Hide (bit 31), rate 3 (bits 28..29), damping 2 (bits 0..2).
    let a = Attribute::unchanged()
        .with(AttributeItem::Hidden, 1)
        .with(AttributeItem::SemiTransparencyRate, 3)
        .with(AttributeItem::MaterialDamping, 2);
    assert_eq!(a.mask, !(0x8000_0000 | 0x3000_0000 | 0x7));
    assert_eq!(a.value, 0x8000_0000 | 0x3000_0000 | 0x2);
    let p = one(packet(1, 0, 0, &[a.mask, a.value]));
    assert_eq!(p.data, PacketData::Attribute(a));
    let widths: u32 = AttributeItem::ALL.iter().map(|i| i.bits().1).sum();
    assert_eq!(widths, 32, "the items tile the word");
    let all = AttributeItem::ALL.iter().fold(0u32, |m, i| {
        assert_eq!(m & i.mask(), 0, "{i:?} overlaps");
        m | i.mask()
    });
    assert_eq!(all, u32::MAX);
}

#[test]
fn coordinate_every_flag_combination() {
    let r = [4096 * 90, -4096 * 45, 7];
    let s = [0x2000_1000u32, 0x0000_f000]; // Sx 4096, Sy 8192, Sz -4096, pad 0
    let t = [100, -200, 300];
    for flag in 0u32..16 {
        let mut data = Vec::new();
        if flag & 2 != 0 {
            data.extend(r.iter().map(|&x| x as u32));
        }
        if flag & 4 != 0 {
            data.extend_from_slice(&s);
        }
        if flag & 8 != 0 {
            data.extend(t.iter().map(|&x| x as u32));
        }
        let p = one(packet(2, 1, flag, &data));
        let PacketData::Coordinate(c) = p.data else {
            panic!("{p:?}")
        };
        assert_eq!(c.differential, flag & 1 != 0);
        assert_eq!(c.rotation, (flag & 2 != 0).then_some(r));
        assert_eq!(
            c.scale,
            (flag & 4 != 0).then_some(Scale {
                x: 4096,
                y: 8192,
                z: -4096,
                pad: 0
            })
        );
        assert_eq!(c.translation, (flag & 8 != 0).then_some(t));
        assert_eq!(p.flag(), flag as u8);
        assert_eq!(p.words(), 1 + data.len());
    }
}

#[test]
fn tmd_id_parent_and_pads() {
    let p = one(packet(5, 2, 0, &[0xbeef_0003]));
    assert_eq!(p.data, PacketData::TmdId(IdValue { id: 3, pad: 0xbeef }));
    let p = one(packet(5, 3, 0, &[0x0000_0004]));
    assert_eq!(p.data, PacketData::Parent(IdValue::new(4)));
    assert_eq!(p.kind(), PacketKind::Parent);
}

#[test]
fn matrix_packet_is_a_gscoordinate2_coord() {
    // 9 int16 row-major, a pad halfword, 3 int32.
    let halves: [u16; 10] = [4096, 0, 0, 0, 4096, 0xf000, 0, 0x1000, 4096, 0xabcd];
    let mut data: Vec<u32> = halves
        .chunks(2)
        .map(|c| c[0] as u32 | (c[1] as u32) << 16)
        .collect();
    data.extend([10u32, (-20i32) as u32, 30]);
    let p = one(packet(1, 4, 0, &data));
    let PacketData::Matrix(m) = p.data else {
        panic!("{p:?}")
    };
    assert_eq!(m.m, [[4096, 0, 0], [0, 4096, -4096], [0, 4096, 4096]]);
    assert_eq!(m.pad, 0xabcd);
    assert_eq!(m.t, [10, -20, 30]);
}

#[test]
fn tmd_data_is_kept_raw_and_reported() {
    let p = one(packet(1, 5, 0, &[1, 2, 3]));
    assert_eq!(
        p.data,
        PacketData::TmdData {
            words: vec![1, 2, 3]
        }
    );
    let t = tod::read(&file(1, &[(0, vec![packet(1, 5, 0, &[1])])])).unwrap();
    assert!(tod::validate(&t)
        .iter()
        .any(|i| i.code == "unsupported-packet" && i.offset == 16));
}

#[test]
fn light_every_flag_combination() {
    for flag in 0u32..16 {
        let mut data = Vec::new();
        if flag & 2 != 0 {
            data.extend([0u32, (-4096i32) as u32, 4096]);
        }
        if flag & 4 != 0 {
            data.push(0x00_30_20_10); // r 0x10, g 0x20, b 0x30
        }
        let p = one(packet(2, 6, flag, &data));
        let PacketData::Light(l) = p.data else {
            panic!("{p:?}")
        };
        assert_eq!(l.differential, flag & 1 != 0);
        assert_eq!(l.direction, (flag & 2 != 0).then_some([0, -4096, 4096]));
        assert_eq!(
            l.color,
            (flag & 4 != 0).then_some(Color {
                r: 0x10,
                g: 0x20,
                b: 0x30,
                pad: 0
            })
        );
        assert_eq!(
            p.flag_reserved,
            (flag & 8) as u8,
            "bit 3 is not defined for lights"
        );
        assert_eq!(p.flag(), flag as u8);
    }
}

#[test]
fn camera_type_0_and_1_every_flag_combination() {
    for flag in 0u32..16 {
        let mut data = Vec::new();
        let type1 = flag & 1 != 0;
        if flag & 4 != 0 {
            data.extend([1u32, 2, 3]);
            if !type1 {
                data.extend([4u32, 5, 6]);
            }
        }
        if flag & 8 != 0 {
            if type1 {
                data.extend([7u32, 8, 9]);
            } else {
                data.push((-1024i32) as u32);
            }
        }
        let p = one(packet(1, 7, flag, &data));
        match p.data {
            PacketData::Camera(Camera::LookAt(c)) => {
                assert!(!type1);
                assert_eq!(c.differential, flag & 2 != 0);
                assert_eq!(c.position, (flag & 4 != 0).then_some([1, 2, 3, 4, 5, 6]));
                assert_eq!(c.z_angle, (flag & 8 != 0).then_some(-1024));
            }
            PacketData::Camera(Camera::RotTrans(c)) => {
                assert!(type1);
                assert_eq!(c.differential, flag & 2 != 0);
                assert_eq!(c.rotation, (flag & 4 != 0).then_some([1, 2, 3]));
                assert_eq!(c.translation, (flag & 8 != 0).then_some([7, 8, 9]));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(p.flag(), flag as u8);
        assert_eq!(p.flag_reserved, 0);
    }
}

#[test]
fn object_control_create_kill_and_reserved() {
    assert_eq!(
        one(packet(4, 8, 0, &[])).data,
        PacketData::ObjectControl(ObjectControl::Create)
    );
    assert_eq!(
        one(packet(4, 8, 1, &[])).data,
        PacketData::ObjectControl(ObjectControl::Kill)
    );
    for flag in 2..16 {
        assert_eq!(
            one(packet(4, 8, flag, &[])).data,
            PacketData::ObjectControl(ObjectControl::Reserved(flag as u8))
        );
    }
}

#[test]
fn user_reserved_and_special_types_are_kept_raw() {
    for kind in 9u32..16 {
        let p = one(packet(6, kind, 0xA, &[0xdead_beef, 1]));
        assert_eq!(
            p.data,
            PacketData::Raw {
                kind: kind as u8,
                flag: 0xA,
                words: vec![0xdead_beef, 1]
            }
        );
        assert_eq!(p.kind().code(), kind as u8);
    }
    assert_eq!(PacketKind::from_code(14), PacketKind::SystemReserved);
    assert_eq!(PacketKind::from_code(15), PacketKind::Special);
    assert_eq!(PacketKind::from_code(11), PacketKind::UserDefined(11));
}

#[test]
fn short_packet_is_kept_raw_and_is_a_validation_error() {
    // Coordinate with R and T announced (7 words) but only 3 present.
    let bytes = file(
        1,
        &[(0, vec![packet(1, 8, 0, &[]), packet(1, 1, 0xA, &[1, 2, 3])])],
    );
    let t = tod::read(&bytes).unwrap();
    assert_eq!(tod::write(&t).unwrap(), bytes);
    let p = &t.frames[0].packets[1];
    assert!(matches!(
        p.data,
        PacketData::Raw {
            kind: 1,
            flag: 0xA,
            ..
        }
    ));
    let issues = tod::validate(&t);
    let e = issues.iter().find(|i| i.code == "packet-length").unwrap();
    assert_eq!(e.severity, Severity::Error);
    assert_eq!(e.offset, 8 + 8 + 4, "offset of the short packet's header");
}

#[test]
fn extra_words_in_packets_and_frames_are_kept() {
    let mut words = vec![0x50u32, 1];
    // Frame size 6: header (2) + TMD ID packet of length 3 (1 extra word) + 1 unused word.
    words.extend([6 | 1 << 16, 0, hdr(2, 2, 0, 3), 5, 0x1111_1111, 0x2222_2222]);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let t = tod::read(&bytes).unwrap();
    assert_eq!(t.frames[0].packets[0].extra_words, vec![0x1111_1111]);
    assert_eq!(t.frames[0].extra_words, vec![0x2222_2222]);
    assert_eq!(tod::write(&t).unwrap(), bytes);
    let issues = tod::validate(&t);
    assert!(!has_errors(&issues), "{issues:?}");
    assert_eq!(
        issues.iter().filter(|i| i.code == "packet-length").count(),
        1
    );
    assert_eq!(
        issues
            .iter()
            .find(|i| i.code == "frame-size")
            .unwrap()
            .offset,
        8 + 8 + 12,
        "the unused word's offset: file header, frame header, 3-word packet"
    );
}

#[test]
fn frame_size_smaller_than_its_packets_is_kept_and_reported() {
    let mut words = vec![0x50u32, 1];
    words.extend([2 | 1 << 16, 0, hdr(2, 8, 0, 1)]);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let t = tod::read(&bytes).unwrap();
    assert_eq!(t.frames[0].size_override, Some(2));
    assert_eq!(tod::write(&t).unwrap(), bytes);
    let issues = tod::validate(&t);
    let e = issues.iter().find(|i| i.code == "frame-size").unwrap();
    assert_eq!((e.severity, e.offset), (Severity::Error, 8));
}

#[test]
fn validation_findings_with_offsets() {
    let bytes = file(
        0,
        &[
            (5, vec![packet(1, 8, 0, &[]), packet(1, 3, 0, &[1])]),
            (3, vec![packet(2, 8, 1, &[]), packet(1, 8, 7, &[])]),
        ],
    );
    let mut bytes = bytes;
    bytes.extend_from_slice(&[0, 0]);
    let t = tod::read(&bytes).unwrap();
    let issues = tod::validate(&t);
    let find = |code: &str| {
        issues
            .iter()
            .find(|i| i.code == code)
            .unwrap_or_else(|| panic!("no {code} in {issues:#?}"))
    };
    // Frame 1 starts at 8 + 4 * (2 + 1 + 2) = 28; its number at 32.
    assert_eq!(
        (find("frame-order").severity, find("frame-order").offset),
        (Severity::Error, 32)
    );
    assert_eq!(find("parent-self").offset, 20 + 4);
    assert_eq!(
        (find("kill-unknown").severity, find("kill-unknown").offset),
        (Severity::Error, 36)
    );
    assert_eq!(find("reserved-value").offset, 40);
    assert_eq!(find("trailing-bytes").offset, 44);
    assert_eq!(find("resolution-zero").severity, Severity::Info);
}

#[test]
fn malformed_inputs_name_the_offset() {
    let err = |b: &[u8]| match tod::read(b) {
        Err(Error::Malformed { offset, what, .. }) => (offset, what),
        other => panic!("{other:?}"),
    };
    let (o, w) = err(&[0x51, 0, 0, 0, 1, 0, 0, 0]);
    assert_eq!(o, 0);
    assert!(w.contains("0x50"), "{w}");
    // Packet length 0 would make a player loop forever.
    let mut words = [0x50u32, 1, 3 | 1 << 16, 0, hdr(1, 8, 0, 0)];
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(err(&b).0, 16);
    // A packet whose length runs past the end.
    words[4] = hdr(1, 1, 0xE, 9);
    let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (o, w) = err(&b);
    assert_eq!(o, 20);
    assert!(w.contains("packet data"), "{w}");
}

#[test]
fn a_header_asking_for_2_pow_32_frames_fails_at_the_count() {
    let b = [0x50, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0];
    match tod::read(&b) {
        Err(Error::Malformed {
            offset: 4, what, ..
        }) => assert!(what.contains("4294967295"), "{what}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unencodable_models_are_refused_not_truncated() {
    let mut t = tod::read(&file(1, &[(0, vec![packet(1, 9, 0, &[])])])).unwrap();
    t.frames[0].packets[0].extra_words = vec![0; 255];
    assert!(matches!(tod::write(&t), Err(Error::Unencodable { .. })));
    t.frames[0].packets[0].extra_words.clear();
    t.frames[0].packets[0].data = PacketData::Coordinate(Coordinate::default());
    t.frames[0].packets[0].flag_reserved = 1;
    assert!(matches!(tod::write(&t), Err(Error::Unencodable { .. })));
}
