//! A small builder over `gltf-json`: one binary buffer, 4-byte aligned buffer views, accessors
//! with the min/max the validator asks for, and de-duplicated animation inputs.

use std::collections::HashMap;

use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::Target;
use json::validation::{Checked, USize64};
use json::Index;

use crate::bytes::{Le, Writer};

/// The glTF document being built and its binary buffer.
pub(crate) struct Builder {
    pub root: json::Root,
    pub bin: Vec<u8>,
    times: HashMap<Vec<u32>, Index<json::Accessor>>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            root: json::Root {
                asset: json::Asset {
                    generator: Some(format!("retroanim {}", env!("CARGO_PKG_VERSION"))),
                    version: "2.0".into(),
                    ..Default::default()
                },
                ..Default::default()
            },
            bin: Vec::new(),
            times: HashMap::new(),
        }
    }

    /// Appends `bytes` as a buffer view (aligned to 4 bytes).
    pub fn view(&mut self, bytes: &[u8], target: Option<Target>) -> Index<json::buffer::View> {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: ComponentType,
        type_: Type,
        target: Option<Target>,
        min_max: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<json::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = match min_max {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A float accessor of `N`-component elements, with min/max per component when asked.
    pub fn floats<const N: usize>(
        &mut self,
        items: &[[f32; N]],
        target: Option<Target>,
        with_min_max: bool,
    ) -> Index<json::Accessor> {
        let mut w = Writer::<Le>::with_capacity(items.len() * N * 4);
        items.iter().flatten().for_each(|&c| w.f32(c));
        let bytes = w.into_vec();
        let type_ = match N {
            1 => Type::Scalar,
            2 => Type::Vec2,
            3 => Type::Vec3,
            4 => Type::Vec4,
            _ => Type::Mat4,
        };
        let mm = with_min_max.then(|| min_max(items));
        self.accessor(&bytes, items.len(), ComponentType::F32, type_, target, mm)
    }

    /// A `JOINTS_0` accessor: four unsigned shorts per vertex.
    pub fn joints(&mut self, items: &[[u16; 4]]) -> Index<json::Accessor> {
        let mut w = Writer::<Le>::with_capacity(items.len() * 8);
        items.iter().for_each(|j| w.u16s(j));
        let bytes = w.into_vec();
        self.accessor(
            &bytes,
            items.len(),
            ComponentType::U16,
            Type::Vec4,
            Some(Target::ArrayBuffer),
            None,
        )
    }

    /// A scalar float accessor (animation outputs such as weights).
    pub fn scalars(&mut self, items: &[f32]) -> Index<json::Accessor> {
        let v: Vec<[f32; 1]> = items.iter().map(|x| [*x]).collect();
        self.floats(&v, None, false)
    }

    /// An animation input accessor; identical time arrays share one accessor.
    pub fn times(&mut self, times: &[f32]) -> Index<json::Accessor> {
        let key: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(i) = self.times.get(&key) {
            return *i;
        }
        let v: Vec<[f32; 1]> = times.iter().map(|x| [*x]).collect();
        let i = self.floats(&v, None, true);
        self.times.insert(key, i);
        i
    }

    /// An index accessor: u16 when every index fits, else u32.
    pub fn indices(&mut self, indices: &[u32]) -> Index<json::Accessor> {
        let max = indices.iter().copied().max().unwrap_or(0);
        let mut w = Writer::le();
        let ct = if max < u16::MAX as u32 {
            indices.iter().for_each(|&i| w.u16(i as u16));
            ComponentType::U16
        } else {
            w.u32_words(indices);
            ComponentType::U32
        };
        let bytes = w.into_vec();
        self.accessor(
            &bytes,
            indices.len(),
            ct,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            None,
        )
    }
}

fn min_max<const N: usize>(items: &[[f32; N]]) -> (serde_json::Value, serde_json::Value) {
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for it in items {
        for k in 0..N {
            lo[k] = lo[k].min(it[k]);
            hi[k] = hi[k].max(it[k]);
        }
    }
    (
        serde_json::json!(lo.to_vec()),
        serde_json::json!(hi.to_vec()),
    )
}
