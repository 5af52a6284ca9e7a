//! Accessors: buffer views, float rows (dense or sparse) and indices, every byte range checked
//! against the buffer actually present before anything is read.
//!
//! A sparse accessor (glTF 2.0 §3.6.2.3: a base — its buffer view, or zeros — with `count`
//! replaced elements) is what Blender's glTF exporter writes for shape keys that move few
//! vertices ("Use Sparse Accessor if better", on by default): its indices must be strictly
//! increasing and below the accessor's count.

use super::*;
use json::accessor::ComponentType as C;

impl Ctx<'_> {
    /// The bytes of buffer view `v`, checked.
    pub(super) fn view(&self, v: usize, path: &str) -> Result<(&[u8], Option<usize>)> {
        let view = self
            .root
            .buffer_views
            .get(v)
            .ok_or_else(|| malformed(0, format!("{path}: bufferView {v} does not exist")))?;
        let buf = self.buffers.get(view.buffer.value()).ok_or_else(|| {
            malformed(
                0,
                format!(
                    "bufferViews[{v}]: buffer {} does not exist",
                    view.buffer.value()
                ),
            )
        })?;
        let start = view.byte_offset.map_or(0, |o| o.0);
        let end = start
            .checked_add(view.byte_length.0)
            .filter(|&e| e <= buf.len() as u64);
        let end = end.ok_or_else(|| {
            malformed(
                0,
                format!(
                    "bufferViews[{v}]: bytes {start}+{} lie outside its buffer of {}",
                    view.byte_length.0,
                    buf.len()
                ),
            )
        })?;
        Ok((
            &buf[start as usize..end as usize],
            view.byte_stride.map(|s| s.0),
        ))
    }

    /// Accessor `a` (that `path` names) and its glTF path.
    fn accessor(&self, a: usize, path: &str) -> Result<(&json::Accessor, String)> {
        let acc = self
            .root
            .accessors
            .get(a)
            .ok_or_else(|| malformed(0, format!("{path}: accessor {a} does not exist")))?;
        Ok((acc, format!("accessors[{a}]")))
    }

    /// Accessor `a` as `count` rows of `width` floats (normalised integers scaled to 0..1 or
    /// −1..1, other integers as their value); a sparse accessor's elements replace its base's.
    pub(super) fn floats(&self, a: usize, width: usize, path: &str) -> Result<Vec<Vec<f32>>> {
        let (acc, here) = self.accessor(a, path)?;
        let comps = match acc.type_ {
            Checked::Valid(t) => t.multiplicity(),
            Checked::Invalid => return Err(malformed(0, format!("{here}: unknown type"))),
        };
        if comps != width {
            return Err(malformed(
                0,
                format!("{here}: {comps} components where {path} needs {width}"),
            ));
        }
        let ct = match acc.component_type {
            Checked::Valid(json::accessor::GenericComponentType(c)) => c,
            Checked::Invalid => {
                return Err(malformed(0, format!("{here}: unknown component type")))
            }
        };
        let count = acc.count.0;
        self.limits.items(None, &format!("{here}.count"), count)?;
        let rows = Rows {
            ct,
            width,
            normalized: acc.normalized,
            here: &here,
        };
        let mut out = match acc.buffer_view {
            None => vec![vec![0.0; width]; count as usize],
            Some(view) => {
                let (bytes, stride) = self.view(view.value(), &here)?;
                let offset = acc.byte_offset.map_or(0, |o| o.0);
                rows.read(bytes, stride, offset, count)?
            }
        };
        if let Some(sparse) = &acc.sparse {
            let n = sparse.count.0;
            if n == 0 || n > count {
                return Err(malformed(
                    0,
                    format!("{here}.sparse: {n} elements of an accessor of {count} (1..={count} allowed)"),
                ));
            }
            let size = match sparse.indices.component_type {
                Checked::Valid(json::accessor::IndexComponentType(C::U8)) => 1,
                Checked::Valid(json::accessor::IndexComponentType(C::U16)) => 2,
                Checked::Valid(json::accessor::IndexComponentType(C::U32)) => 4,
                _ => {
                    return Err(malformed(
                        0,
                        format!(
                            "{here}.sparse.indices: the component type must be an unsigned integer"
                        ),
                    ))
                }
            };
            let (bytes, _) = self.view(sparse.indices.buffer_view.value(), &here)?;
            let indices = read_indices(
                bytes,
                sparse.indices.byte_offset.0,
                n,
                size,
                &format!("{here}.sparse.indices"),
            )?;
            if let Some(w) = indices.windows(2).find(|w| w[1] <= w[0]) {
                return Err(malformed(
                    0,
                    format!(
                        "{here}.sparse.indices: {} after {}; they must increase",
                        w[1], w[0]
                    ),
                ));
            }
            if let Some(&bad) = indices.last().filter(|&&i| u64::from(i) >= count) {
                return Err(malformed(
                    0,
                    format!("{here}.sparse.indices: element {bad} of an accessor of {count}"),
                ));
            }
            let (bytes, _) = self.view(sparse.values.buffer_view.value(), &here)?;
            let values = rows.read(bytes, None, sparse.values.byte_offset.0, n)?;
            for (i, v) in indices.into_iter().zip(values) {
                out[i as usize] = v;
            }
        }
        Ok(out)
    }

    /// Accessor `a` as indices (exact integers: a float would round indices past 2^24).
    pub(super) fn indices(&self, a: usize, path: &str) -> Result<Vec<u32>> {
        let (acc, here) = self.accessor(a, path)?;
        let size = match acc.component_type {
            Checked::Valid(json::accessor::GenericComponentType(C::U8)) => 1,
            Checked::Valid(json::accessor::GenericComponentType(C::U16)) => 2,
            Checked::Valid(json::accessor::GenericComponentType(C::U32)) => 4,
            _ => {
                return Err(malformed(
                    0,
                    format!("{path}: indices ({here}) must be unsigned integers"),
                ))
            }
        };
        if !matches!(acc.type_, Checked::Valid(json::accessor::Type::Scalar))
            || acc.sparse.is_some()
        {
            return Err(malformed(
                0,
                format!("{path}: indices ({here}) must be a dense SCALAR accessor"),
            ));
        }
        let count = acc.count.0;
        self.limits.items(None, &format!("{here}.count"), count)?;
        let view = acc
            .buffer_view
            .ok_or_else(|| malformed(0, format!("{here}: indices without a bufferView")))?;
        let (bytes, _) = self.view(view.value(), &here)?;
        read_indices(
            bytes,
            acc.byte_offset.map_or(0, |o| o.0),
            count,
            size,
            &here,
        )
    }
}

/// `count` tightly packed unsigned integers of `size` bytes from `offset` in `bytes`.
fn read_indices(bytes: &[u8], offset: u64, count: u64, size: u64, here: &str) -> Result<Vec<u32>> {
    let end = count
        .checked_mul(size)
        .and_then(|n| n.checked_add(offset))
        .filter(|&e| e <= bytes.len() as u64)
        .ok_or_else(|| {
            malformed(
                0,
                format!(
                    "{here}: {count} indices of {size} bytes from {offset} run past its bufferView of {}",
                    bytes.len()
                ),
            )
        })?;
    let data = &bytes[offset as usize..end as usize];
    Ok(match size {
        1 => data.iter().map(|&b| u32::from(b)).collect(),
        2 => data
            .chunks_exact(2)
            .map(|c| u32::from(Le::u16_from([c[0], c[1]])))
            .collect(),
        _ => data
            .chunks_exact(4)
            .map(|c| Le::u32_from([c[0], c[1], c[2], c[3]]))
            .collect(),
    })
}

/// How an accessor's elements are laid out.
struct Rows<'a> {
    ct: C,
    width: usize,
    normalized: bool,
    here: &'a str,
}

impl Rows<'_> {
    /// `count` elements from `offset` in `bytes`, `stride` bytes apart (default: packed).
    fn read(
        &self,
        bytes: &[u8],
        stride: Option<usize>,
        offset: u64,
        count: u64,
    ) -> Result<Vec<Vec<f32>>> {
        let (here, width) = (self.here, self.width);
        let size = self.ct.size();
        let elem = size * width;
        let stride = stride.unwrap_or(elem).max(elem) as u64;
        if count > 0 {
            let last = offset
                .checked_add((count - 1).saturating_mul(stride))
                .and_then(|x| x.checked_add(elem as u64));
            if last.map_or(true, |l| l > bytes.len() as u64) {
                return Err(malformed(0, format!("{here}: {count} elements of {elem} bytes every {stride} from {offset} run past its bufferView of {}", bytes.len())));
            }
        }
        let normalized = self.normalized;
        let mut out = Vec::with_capacity(count as usize);
        for i in 0..count {
            let start = offset + i * stride;
            let mut row = Vec::with_capacity(width);
            for k in 0..width as u64 {
                let p = start + k * size as u64;
                let v = match self.ct {
                    C::F32 => f32::from_bits(Le::u32_from(at(bytes, p)?)),
                    C::U8 => scale(at::<1>(bytes, p)?[0] as f32, 255.0, normalized),
                    C::I8 => scale(at::<1>(bytes, p)?[0] as i8 as f32, 127.0, normalized),
                    C::U16 => scale(Le::u16_from(at(bytes, p)?) as f32, 65535.0, normalized),
                    C::I16 => scale(
                        Le::u16_from(at(bytes, p)?) as i16 as f32,
                        32767.0,
                        normalized,
                    ),
                    C::U32 => Le::u32_from(at(bytes, p)?) as f32,
                };
                if !v.is_finite() {
                    return Err(malformed(
                        0,
                        format!("{here}: element {i} is not a finite number"),
                    ));
                }
                row.push(v);
            }
            out.push(row);
        }
        Ok(out)
    }
}

fn scale(v: f32, max: f32, normalized: bool) -> f32 {
    if normalized {
        (v / max).max(-1.0)
    } else {
        v
    }
}
