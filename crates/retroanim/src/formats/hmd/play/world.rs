//! World matrices (`GsGetLw`), devices placed in the world, and what a frame shows.

use super::*;

impl Player<'_> {
    /// The pose after the updates so far (MIMe applied to the coordinates it moves).
    pub fn frame(&self) -> Frame {
        let coords = self.shown_coords.as_ref().unwrap_or(&self.coords);
        let mut world: Vec<Option<Mat>> = vec![None; coords.len()];
        for i in 0..coords.len() {
            world_of(coords, i, &mut world);
        }
        Frame {
            frame: self.updates.saturating_sub(1),
            coordinates: coords
                .iter()
                .enumerate()
                .map(|(i, c)| CoordinatePose {
                    index: i,
                    parent: c.parent,
                    rot: c.rot,
                    local: c.matrix,
                    world: world[i].unwrap_or(c.matrix),
                })
                .collect(),
            sequences: self.sequences(),
            mime: self
                .mimes
                .iter()
                .filter(|m| !m.reset)
                .map(|m| MimeState {
                    primitive: m.primitive,
                    kind: m.kind,
                    weights: self.weights(m),
                })
                .collect(),
            devices: Vec::new(),
        }
        .with_devices(self)
    }

    /// The coordinate index a pointer into the coordinate section names.
    pub(super) fn coordinate_at(&self, ptr: Option<u32>) -> Option<usize> {
        let c = self.coord_section?;
        let d = ptr?.checked_sub(c + 1)?;
        (d % 20 == 0 && ((d / 20) as usize) < self.coords.len()).then_some((d / 20) as usize)
    }

    pub(super) fn devices(&self, world: &[CoordinatePose]) -> Vec<DeviceState> {
        let headers = self.hmd.headers();
        let mut out = Vec::new();
        for (at, p) in self.hmd.primitives() {
            let Some(h) = headers.get(&p.header) else {
                continue;
            };
            for t in &p.types {
                if t.kind().category() != 7 || t.kind().developer() != 0 {
                    continue;
                }
                let Some(kind) = DeviceKind::from_code(t.type_code) else {
                    continue;
                };
                let ptr = |i: usize| h.words.get(i).and_then(|e| e.pointer());
                let light = match &t.data {
                    TypeData::Light(l) => Some(*l),
                    _ => None,
                };
                let want = light.map(|l| l.parameter_index).unwrap_or(0);
                let parameters = ptr(0)
                    .and_then(|s| self.hmd.section_at(s))
                    .and_then(|s| match &s.data {
                        SectionData::Devices(items) => {
                            items.iter().find(|i| i.index() == Some(want)).cloned()
                        }
                        _ => None,
                    });
                let coordinate = self.coordinate_at(ptr(1));
                let reference_coordinate = self.coordinate_at(ptr(2));
                let (pos, tgt) = match &parameters {
                    Some(DeviceItem::Camera(c)) => (Some(c.position), Some(c.reference)),
                    Some(DeviceItem::Light {
                        position,
                        reference,
                        ..
                    }) => (Some(*position), Some(*reference)),
                    _ => (None, None),
                };
                let place = |c: Option<usize>, v: [i32; 3]| match c.and_then(|c| world.get(c)) {
                    Some(w) => apply(&w.world, v),
                    None => v,
                };
                let (position, target) = match kind {
                    DeviceKind::Projection | DeviceKind::Ambient => (None, None),
                    DeviceKind::WorldCamera | DeviceKind::WorldLight => (pos, tgt),
                    DeviceKind::FixCamera | DeviceKind::FixLight => (
                        pos.map(|v| place(coordinate, v)),
                        tgt.map(|v| place(coordinate, v)),
                    ),
                    DeviceKind::AimCamera | DeviceKind::AimLight => (
                        pos.map(|v| place(coordinate, v)),
                        tgt.map(|v| place(reference_coordinate, v)),
                    ),
                };
                out.push(DeviceState {
                    primitive: at,
                    kind,
                    light_number: light.map(|l| l.number),
                    parameters,
                    coordinate,
                    reference_coordinate,
                    position,
                    target,
                });
            }
        }
        out
    }
}

impl Frame {
    pub(super) fn with_devices(mut self, player: &Player<'_>) -> Frame {
        self.devices = player.devices(&self.coordinates);
        self
    }
}

/// `m · v`: a point in a coordinate system placed in its parent (`t + (m·v) >> 12`).
pub fn apply(m: &Mat, v: [i32; 3]) -> [i32; 3] {
    let mut out = [0i32; 3];
    for (i, o) in out.iter_mut().enumerate() {
        let s: i64 = (0..3).map(|k| m.m[i][k] as i64 * v[k] as i64).sum();
        *o = m.t[i].wrapping_add((s >> 12) as i32);
    }
    out
}

pub(super) fn world_of(coords: &[Coord], i: usize, world: &mut [Option<Mat>]) -> Mat {
    // Walk up to the first known ancestor (bounded by the coordinate count), then down.
    let mut chain = vec![i];
    let mut at = i;
    while world[at].is_none() {
        match coords[at].parent {
            Some(p) if chain.len() <= coords.len() && !chain.contains(&p) => {
                chain.push(p);
                at = p;
            }
            _ => break,
        }
    }
    let mut acc: Option<Mat> = None;
    for &c in chain.iter().rev() {
        let m = match (world[c], acc) {
            (Some(w), _) => w,
            (None, Some(parent)) => gte::compose(&parent, &coords[c].matrix),
            (None, None) => coords[c].matrix,
        };
        world[c] = Some(m);
        acc = Some(m);
    }
    world[i].unwrap_or(coords[i].matrix)
}
