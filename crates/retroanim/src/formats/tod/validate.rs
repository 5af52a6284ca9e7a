//! TOD validation: every finding with its severity and byte offset.

use std::collections::BTreeSet;

use crate::report::Issue;

use super::read::required_words;
use super::types::*;

/// Checks a TOD model and returns every finding. Offsets are those of the file the model was
/// read from (the layout is recomputed exactly as the writer lays it out).
pub fn validate(tod: &Tod) -> Vec<Issue> {
    let mut out = Vec::new();
    if tod.header.version != 0 {
        out.push(Issue::warning(
            1,
            "version",
            format!(
                "version {}; the format defines 0 and players may reject others",
                tod.header.version
            ),
        ));
    }
    if tod.header.resolution == 0 {
        out.push(Issue::info(
            2,
            "resolution-zero",
            "resolution 0: players show each frame for 1 tick (1/60 s)",
        ));
    }
    let mut offset = 8u64;
    let mut previous: Option<u32> = None;
    let mut live = BTreeSet::new();
    let mut ever = BTreeSet::new();
    for (fi, frame) in tod.frames.iter().enumerate() {
        let at = offset;
        let packet_words: usize = frame.packets.iter().map(Packet::words).sum();
        if let Some(size) = frame.size_override {
            out.push(Issue::error(
                at,
                "frame-size",
                format!(
                    "frame {fi}: size field says {size} words, but its header and {} packets take {}",
                    frame.packets.len(),
                    2 + packet_words
                ),
            ));
        }
        if !frame.extra_words.is_empty() {
            out.push(Issue::warning(
                at + 8 + packet_words as u64 * 4,
                "frame-size",
                format!(
                    "frame {fi}: size field says {} words, leaving {} unused words after its {} packets",
                    frame.size_field(),
                    frame.extra_words.len(),
                    frame.packets.len()
                ),
            ));
        }
        if let Some(prev) = previous {
            if frame.number < prev {
                out.push(Issue::error(
                    at + 4,
                    "frame-order",
                    format!(
                        "frame {fi}: frame number {} comes after {prev}; frames must be in time order",
                        frame.number
                    ),
                ));
            } else if frame.number == prev {
                out.push(Issue::warning(
                    at + 4,
                    "frame-order",
                    format!(
                        "frame {fi}: frame number {} repeats the previous frame's",
                        frame.number
                    ),
                ));
            }
        }
        previous = Some(frame.number);
        let mut p_off = at + 8;
        for packet in &frame.packets {
            check_packet(packet, p_off, fi, &mut live, &mut ever, &mut out);
            p_off += packet.words() as u64 * 4;
        }
        offset += frame.words() as u64 * 4;
    }
    if !tod.trailing.is_empty() {
        out.push(Issue::warning(
            offset,
            "trailing-bytes",
            format!(
                "{} bytes after the last of {} frames",
                tod.trailing.len(),
                tod.frames.len()
            ),
        ));
    }
    out
}

fn check_packet(
    p: &Packet,
    at: u64,
    fi: usize,
    live: &mut BTreeSet<u16>,
    ever: &mut BTreeSet<u16>,
    out: &mut Vec<Issue>,
) {
    let kind = p.kind();
    let id = p.object_id;
    if let PacketData::Raw {
        kind: code,
        flag,
        words,
    } = &p.data
    {
        if let Some(need) = required_words(*code, *flag) {
            out.push(Issue::error(
                at,
                "packet-length",
                format!(
                    "frame {fi}: {} packet with flag 0x{flag:x} needs {} words, but its length is {}",
                    kind.name(),
                    need + 1,
                    words.len() + 1
                ),
            ));
        }
    }
    if !p.extra_words.is_empty() {
        out.push(Issue::warning(
            at,
            "packet-length",
            format!(
                "frame {fi}: {} packet for object {id} has {} words after the data its flag describes",
                kind.name(),
                p.extra_words.len()
            ),
        ));
    }
    if p.flag_reserved != 0 {
        out.push(Issue::warning(
            at,
            "reserved-value",
            format!(
                "frame {fi}: {} packet sets flag bits 0x{:x}, which the type does not define",
                kind.name(),
                p.flag_reserved
            ),
        ));
    }
    match &p.data {
        PacketData::ObjectControl(ObjectControl::Create) => {
            if !live.insert(id) {
                out.push(Issue::warning(
                    at,
                    "create-live",
                    format!("frame {fi}: object {id} is created while it is already alive"),
                ));
            }
            ever.insert(id);
        }
        // A kill removes the object from the live set; one that was not there is a finding.
        PacketData::ObjectControl(ObjectControl::Kill) if !live.remove(&id) => {
            let why = if ever.contains(&id) {
                "was already killed"
            } else {
                "was never created"
            };
            out.push(Issue::error(
                at,
                "kill-unknown",
                format!("frame {fi}: kill of object {id}, which {why}"),
            ));
        }
        PacketData::ObjectControl(ObjectControl::Reserved(n)) => out.push(Issue::warning(
            at,
            "reserved-value",
            format!("frame {fi}: object control value {n} is system reserved"),
        )),
        PacketData::Attribute(a) => {
            let reserved = AttributeItem::Reserved.mask();
            if a.value & reserved != 0 {
                out.push(Issue::warning(
                    at + 8,
                    "reserved-value",
                    format!(
                        "frame {fi}: attribute value sets reserved bits 9..27 (0x{:08x})",
                        a.value & reserved
                    ),
                ));
            }
            if a.value & a.mask != 0 {
                out.push(Issue::warning(
                    at + 8,
                    "attribute-value",
                    format!(
                        "frame {fi}: attribute value has bits 0x{:08x} set where the mask keeps the old value (they should be 0)",
                        a.value & a.mask
                    ),
                ));
            }
        }
        PacketData::Parent(v) if v.id == id => out.push(Issue::error(
            at + 4,
            "parent-self",
            format!("frame {fi}: object {id} is made its own parent"),
        )),
        PacketData::TmdData { .. } => out.push(Issue::warning(
            at,
            "unsupported-packet",
            format!("frame {fi}: TMD data packet: the format declares it unsupported"),
        )),
        _ => {}
    }
    match kind {
        PacketKind::SystemReserved => out.push(Issue::warning(
            at,
            "reserved-value",
            format!("frame {fi}: packet type 14 is system reserved"),
        )),
        PacketKind::UserDefined(n) => out.push(Issue::info(
            at,
            "user-packet",
            format!("frame {fi}: user-defined packet type {n}, kept as raw words"),
        )),
        PacketKind::Special => out.push(Issue::info(
            at,
            "special-packet",
            format!("frame {fi}: special command packet (type 15), kept as raw words"),
        )),
        _ => {}
    }
}
