//! RSD family readers (RSD, PLY, MAT, GRP text): any bytes → Ok or Err, never a panic; what
//! reads writes back identically, and the canonical form reads back as the same model; a set
//! built from the bytes validates and links to a TMD without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retroanim::formats::rsd::{self, Kept, RsdSet};

fuzz_target!(|data: &[u8]| {
    let mut set = RsdSet::default();
    if let Ok(r) = rsd::read_rsd("f.rsd", data) {
        assert_eq!(rsd::write_rsd(&r).expect("writes"), data, "RSD round trip");
        set.rsd = r;
    }
    if let Ok(mut p) = rsd::read_ply("f.ply", data) {
        assert_eq!(rsd::write_ply(&p).expect("writes"), data, "PLY round trip");
        p.kept = Kept::default();
        let again = rsd::read_ply("f.ply", &rsd::write_ply(&p).unwrap()).expect("canonical reads");
        assert_eq!((&again.vertices, &again.normals, &again.polygons), (&p.vertices, &p.normals, &p.polygons));
        set.ply = Some(p);
    }
    if let Ok(mut m) = rsd::read_mat("f.mat", data) {
        assert_eq!(rsd::write_mat(&m).expect("writes"), data, "MAT round trip");
        m.kept = Kept::default();
        if let Ok(bytes) = rsd::write_mat(&m) {
            let again = rsd::read_mat("f.mat", &bytes).expect("canonical reads");
            assert_eq!(again.materials, m.materials);
        }
        set.mat = Some(m);
    }
    if let Ok(g) = rsd::read_grp("f.grp", data) {
        assert_eq!(rsd::write_grp(&g).expect("writes"), data, "GRP round trip");
        set.grp = Some(g);
    }
    let _ = rsd::validate(&set);
    let _ = rsd::to_tmd(&set);
});
