//! Every distinct corpus TOD (without its TMD or prelude: objects play as bare coordinates)
//! goes TOD → GLB → TOD through `retroanim::convert`, and the TOD player is asked to put every
//! object of the new file where it put the original's: world matrices within one unit at every
//! frame (issue #14), for every object a user can see in either file (an object hidden by its
//! display bit in one file must be hidden or collapsed in the other). `psx_author.rs` checks
//! the janken TODs with their TMD (all within 1); across the corpus this does not hold yet
//! (measured December 2026: 77 of 85 within 1 unit, the other 8 within 3 — LSD objects
//! scaled unevenly under deep chains; 64 of 85 before the TOD solver searched the whole
//! gimbal-lock line and the scale by descent), so the bounds below keep what holds from
//! getting worse and the output lists the worst. Four LSD files hide children under a zero-scaled
//! parent; the glTF hides the parent (scale 0) and the author turns that into display bits, so
//! their world matrices differ where neither file shows anything.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use retroanim::convert::{self, Options};
use retroanim::formats::tod;
use retroanim::{Format, Model};

use common::mat_distance as distance;

/// True when `o` can be seen: display bit on and a world matrix that does not collapse it
/// (every element within ±1/4096: a model's int16 vertices land within 8 units of one point, as
/// LSD's zero-scaled parents leave their children).
fn in_view(o: &tod::ObjectPose) -> bool {
    o.visible && o.world.m.iter().flatten().any(|&v| v.abs() > 1)
}

#[test]
fn every_corpus_tod_round_trips_through_glb_within_one_unit() {
    let mut seen = BTreeSet::new();
    let (mut files, mut compared, mut hidden) = (0usize, 0usize, 0usize);
    let mut report: Vec<(i64, String)> = Vec::new();
    for (name, path) in common::corpus_files("TOD") {
        let bytes = std::fs::read(&path).unwrap();
        if !seen.insert(bytes.clone()) {
            continue;
        }
        let anim = tod::read(&bytes).unwrap();
        let glb =
            convert::convert(&Model::Tod(anim.clone()), Format::Glb, &Options::default()).unwrap();
        let out = common::glb_to_tod(&glb.bytes, anim.header.resolution);
        let Model::Tod(new_tod) = retroanim::read_any(&out.bytes).unwrap() else {
            panic!("{name}: not a TOD")
        };
        let old: Vec<tod::Pose> = tod::Player::new(&anim, None).collect();
        let new: Vec<tod::Pose> = tod::Player::new(&new_tod, None).collect();
        let (Some(first), Some(last_new)) = (old.first(), new.last()) else {
            continue;
        };
        let first = first.frame;
        let last_new = last_new.frame;
        let by_tick: BTreeMap<u32, &tod::Pose> = new.iter().map(|p| (p.frame, p)).collect();
        let new_id = common::tod_ids_by_appearance(&old);
        let mut worst = (0i64, String::new());
        for p in &old {
            let Some(q) = by_tick.get(&(p.frame - first).min(last_new)) else {
                worst = (i64::MAX, format!("tick {} missing", p.frame));
                continue;
            };
            let mut done = BTreeSet::new();
            for o in p.objects.iter().filter(|o| done.insert(o.id)) {
                let Some(n) = q.objects.iter().find(|x| x.id == new_id[&o.id]) else {
                    worst = (
                        i64::MAX,
                        format!("tick {} object {} missing", p.frame, o.id),
                    );
                    continue;
                };
                // What a user sees: nothing of an object hidden by its display bit or
                // collapsed by its world matrix (`in_view`) in both files; an object one file
                // hides by its display bit must be hidden in the other too; otherwise the
                // world matrices are compared (a collapsed one against a near-collapsed one).
                let (was, now) = (in_view(o), in_view(n));
                if !was && !now {
                    hidden += 1;
                    continue;
                }
                if (was && !n.visible) || (now && !o.visible) {
                    worst = (
                        i64::MAX,
                        format!(
                            "tick {} object {}: seen {was} in the original, {now} after",
                            p.frame, o.id
                        ),
                    );
                    continue;
                }
                let d = distance(&o.world, &n.world);
                if d > worst.0 {
                    worst = (d, format!("tick {} object {}", p.frame, o.id));
                }
                compared += 1;
            }
        }
        files += 1;
        report.push((worst.0, format!("{name}: worst {} ({})", worst.0, worst.1)));
    }
    report.sort_by_key(|r| std::cmp::Reverse(r.0));
    for (_, r) in report.iter().take(10) {
        eprintln!("{r}");
    }
    let over: Vec<_> = report.iter().filter(|r| r.0 > 1).collect();
    eprintln!(
        "{files} TODs, {compared} object poses compared ({hidden} unseen in both), {} over 1 unit",
        over.len()
    );
    assert!(files >= 85, "{files} TODs");
    assert!(over.len() <= 8, "{over:#?}");
    let far: Vec<_> = report.iter().filter(|r| r.0 > 3).collect();
    assert!(far.is_empty(), "{far:#?}");
}
