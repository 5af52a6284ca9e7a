//! serde helpers that keep every `f32` bit pattern through JSON: finite values are JSON numbers
//! (serde_json writes the shortest text that reads back to the same `f32`), NaN and the
//! infinities — which JSON cannot hold — are strings `"f32:0x7fc00000"` with their bits, so
//! `dump --json` then `convert` rebuilds even such files byte for byte.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One `f32`, faithful through JSON.
#[derive(Debug, Clone, Copy)]
pub(crate) struct J(pub f32);

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f32(self.0)
        } else {
            s.serialize_str(&format!("f32:{:#010x}", self.0.to_bits()))
        }
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Num(f32),
            Bits(String),
        }
        match Repr::deserialize(d)? {
            Repr::Num(v) => Ok(J(v)),
            Repr::Bits(s) => s
                .strip_prefix("f32:0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .map(|b| J(f32::from_bits(b)))
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "expected a number or \"f32:0x<8 hex digits>\", found {s:?}"
                    ))
                }),
        }
    }
}

fn to3(p: &[f32; 3]) -> [J; 3] {
    p.map(J)
}

fn from3(p: [J; 3]) -> [f32; 3] {
    p.map(|j| j.0)
}

/// `f32` fields.
pub(crate) mod scalar {
    use super::*;

    pub fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
        J(*v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        Ok(J::deserialize(d)?.0)
    }
}

/// `Vec<f32>` fields.
pub(crate) mod list {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[f32], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| J(*x)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f32>, D::Error> {
        Ok(Vec::<J>::deserialize(d)?.into_iter().map(|j| j.0).collect())
    }
}

/// `Vec<Vec<[f32; 3]>>` fields (frames of positions).
pub(crate) mod frames {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[Vec<[f32; 3]>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|f| f.iter().map(to3).collect::<Vec<_>>()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<[f32; 3]>>, D::Error> {
        Ok(Vec::<Vec<[J; 3]>>::deserialize(d)?
            .into_iter()
            .map(|f| f.into_iter().map(from3).collect())
            .collect())
    }
}

/// `Option<Vec<[f32; 3]>>` fields (an optional frame).
pub(crate) mod optional_frame {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<Vec<[f32; 3]>>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref()
            .map(|f| f.iter().map(to3).collect::<Vec<_>>())
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<[f32; 3]>>, D::Error> {
        Ok(Option::<Vec<[J; 3]>>::deserialize(d)?.map(|f| f.into_iter().map(from3).collect()))
    }
}

/// `[f32; 3]` fields (a vector).
pub(crate) mod triple {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[f32; 3], s: S) -> Result<S::Ok, S::Error> {
        to3(v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f32; 3], D::Error> {
        Ok(from3(<[J; 3]>::deserialize(d)?))
    }
}

/// `[f32; 12]` fields (a 4×3 matrix).
pub(crate) mod matrix12 {
    use super::*;

    pub fn serialize<S: Serializer>(v: &[f32; 12], s: S) -> Result<S::Ok, S::Error> {
        v.map(J).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[f32; 12], D::Error> {
        Ok(<[J; 12]>::deserialize(d)?.map(|j| j.0))
    }
}
