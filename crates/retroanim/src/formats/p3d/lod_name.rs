//! LOD names: the resolution float of a P3D LOD is a LOD *type* above 1000 (Geometry, Memory,
//! Shadow volume N…), named as Object Builder and modders name them. Values from the research
//! notes §1.6 (`notes/p3d_mdd_pc2.md`: HEMTT `lod.rs`, Arma 3 Object Builder's
//! `P3D_LOD_Resolution`). The floats are compared with a relative tolerance, since the files store
//! them as f32 (1e13 is stored as 9999999827968.0).

/// Exact special LODs, by value.
const NAMED: &[(f64, &str)] = &[
    (1.0e3, "View - Gunner"),
    (1.1e3, "View - Pilot"),
    (1.0e13, "Geometry"),
    (2.0e13, "Geometry Buoyancy"),
    (4.0e13, "Geometry PhysX"),
    (1.0e15, "Memory"),
    (2.0e15, "LandContact"),
    (3.0e15, "Roadway"),
    (4.0e15, "Paths"),
    (5.0e15, "Hit-points"),
    (6.0e15, "View Geometry"),
    (7.0e15, "Fire Geometry"),
    (9.0e15, "View Cargo Fire Geometry"),
    (1.0e16, "View - Commander"),
    (1.1e16, "View Commander Geometry"),
    (1.2e16, "View Commander Fire Geometry"),
    (1.3e16, "View Pilot Geometry"),
    (1.4e16, "View Pilot Fire Geometry"),
    (1.5e16, "View Gunner Geometry"),
    (1.6e16, "View Gunner Fire Geometry"),
    (1.7e16, "Sub Parts"),
    (1.9e16, "Shadow Volume - View Pilot"),
    (2.0e16, "Shadow Volume - View Gunner"),
    (2.1e16, "Wreck"),
];

/// Numbered special LODs: base value, step, name (`Name N`, N = (value − base) / step).
const NUMBERED: &[(f64, f64, f64, &str)] = &[
    (1.2e3, 1.0, 1.3e3, "View - Cargo"),
    (1.0e4, 1.0, 1.1e4, "Shadow Volume"),
    (1.1e4, 1.0, 1.2e4, "Shadow Buffer"),
    (2.0e4, 1.0, 3.0e4, "Edit"),
    (8.0e15, 1.0e13, 9.0e15, "View Cargo Geometry"),
    (1.8e16, 1.0e13, 1.9e16, "Shadow Volume - View Cargo"),
];

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= b.abs() * 1e-6
}

/// The name modders use for a LOD's resolution value: `"Geometry"`, `"Memory"`,
/// `"Shadow Volume 10"`, `"View - Pilot"`…; a visual LOD (below 1000) is its resolution as a
/// short number (`"1"`, `"0.5"`); a value of no known type is the number itself.
pub fn lod_name(resolution: f32) -> String {
    let r = f64::from(resolution);
    if let Some((_, name)) = NAMED.iter().find(|(v, _)| near(r, *v)) {
        return (*name).to_string();
    }
    for &(base, step, end, name) in NUMBERED {
        if (r >= base || near(r, base)) && r < end && !near(r, end) {
            let n = ((r - base) / step).round().max(0.0);
            return format!("{name} {n}");
        }
    }
    // Shortest text that reads back as the same f32.
    format!("{resolution}")
}

/// The resolution value a LOD is named by: a number (`1`, `1e13`), or a name [`lod_name`]
/// gives (`Geometry`, `shadow volume 10`; case and spaces around ` - ` ignored). `None` for
/// neither.
pub fn lod_value(text: &str) -> Option<f64> {
    let t = text.trim();
    if let Ok(v) = t.parse::<f64>() {
        return v.is_finite().then_some(v);
    }
    let key = |s: &str| -> String {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(" - ", "-")
            .to_ascii_lowercase()
    };
    let want = key(t);
    if let Some((v, _)) = NAMED.iter().find(|(_, n)| key(n) == want) {
        return Some(*v);
    }
    for &(base, step, end, name) in NUMBERED {
        let Some(n) = want.strip_prefix(&key(name)) else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u32>() else {
            continue;
        };
        let v = base + f64::from(n) * step;
        if v < end {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{lod_name, lod_value};

    #[test]
    fn names_read_back_as_their_values() {
        for v in [1.0f32, 0.5, 1e13, 1e15, 5e15, 1100.0, 10_010.0, 8.02e15] {
            let name = lod_name(v);
            let back = lod_value(&name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(lod_name(back as f32), name, "{v}");
        }
        assert_eq!(lod_value("geometry"), Some(1e13));
        assert_eq!(lod_value("View-Pilot"), Some(1100.0));
        assert_eq!(lod_value("Shadow Volume 10"), Some(10_010.0));
        assert_eq!(lod_value("Nothing"), None);
        assert_eq!(lod_value("inf"), None);
    }

    #[test]
    fn names_follow_the_lod_table() {
        assert_eq!(lod_name(1.0), "1");
        assert_eq!(lod_name(0.5), "0.5");
        assert_eq!(lod_name(9_999_999_827_968.0), "Geometry");
        assert_eq!(lod_name(1e15), "Memory");
        assert_eq!(lod_name(999_999_986_991_104.0), "Memory");
        assert_eq!(lod_name(2e15), "LandContact");
        assert_eq!(lod_name(5e15), "Hit-points");
        assert_eq!(lod_name(1100.0), "View - Pilot");
        assert_eq!(lod_name(10_010.0), "Shadow Volume 10");
        assert_eq!(lod_name(10_000.0), "Shadow Volume 0");
        assert_eq!(lod_name(8e15 + 2e13), "View Cargo Geometry 2");
        assert_eq!(lod_name(2.1e16), "Wreck");
        assert_eq!(lod_name(5e14), "500000000000000");
    }
}
