//! The `retroanim` namespace of glTF `extras`: what an export keeps of the console's structure
//! (TOD object IDs, HMD coordinates, sequence tables …) so that the authors can write the same
//! structure back. The schema is documented for users in `docs/extras.md` and as a JSON Schema
//! in `docs/schema/gltf-extras.schema.json`.
//!
//! Every element's extras hold one object under the key [`KEY`], with the schema's
//! [`VERSION`] and one member per format (`"tod"`, `"tmd"`, `"hmd"`):
//! `{"retroanim": {"version": 1, "tod": {"object": 5}}}`. Other keys beside `retroanim` (other
//! tools' extras) are kept as they are and never read. A version this library does not know
//! is ignored as a whole: the authors then behave as for a scene made from scratch.

use serde_json::{json, Value};

/// The key of the namespace in an `extras` object.
pub const KEY: &str = "retroanim";

/// The schema version written (and the only one read).
pub const VERSION: u64 = 1;

/// Adds `value` as member `format` of the namespace in `extras` (made an object if it is not;
/// other members are kept).
pub fn put(extras: &mut Value, format: &str, value: Value) {
    if !extras.is_object() {
        *extras = json!({});
    }
    let ns = &mut extras[KEY];
    if !ns.is_object() {
        *ns = json!({ "version": VERSION });
    }
    ns["version"] = json!(VERSION);
    ns[format] = value;
}

/// An `extras` object holding only `format`'s member.
pub fn tagged(format: &str, value: Value) -> Value {
    let mut v = Value::Null;
    put(&mut v, format, value);
    v
}

/// Member `format` of the namespace, when the namespace has the version this library reads.
pub fn get<'a>(extras: &'a Value, format: &str) -> Option<&'a Value> {
    let ns = extras.get(KEY)?;
    (ns.get("version")?.as_u64()? == VERSION)
        .then(|| ns.get(format))
        .flatten()
}

/// An unsigned integer member `field` of `format`'s member.
pub fn get_u64(extras: &Value, format: &str, field: &str) -> Option<u64> {
    get(extras, format)?.get(field)?.as_u64()
}

/// A list of `[frame, value]` pairs of `format`'s member `field` (frames ascending; pairs that
/// are not two unsigned integers are skipped).
pub fn frame_values(extras: &Value, format: &str, field: &str) -> Vec<(u64, u64)> {
    let Some(list) = get(extras, format)
        .and_then(|v| v.get(field))
        .and_then(|v| v.as_array())
    else {
        return Vec::new();
    };
    let mut out: Vec<(u64, u64)> = list
        .iter()
        .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
        .collect();
    out.sort_by_key(|p| p.0);
    out
}

/// The value of a `[frame, value]` list at `frame`: the last pair at or before it.
pub fn value_at(list: &[(u64, u64)], frame: u64) -> Option<u64> {
    list.iter().take_while(|p| p.0 <= frame).last().map(|p| p.1)
}

/// The namespace of `extras` when it has the version this library reads.
pub fn namespace(extras: &Value) -> Option<&serde_json::Map<String, Value>> {
    let ns = extras.get(KEY)?;
    (ns.get("version")?.as_u64()? == VERSION)
        .then(|| ns.as_object())
        .flatten()
}

/// The member of the scene's namespace that records each animation's own namespace.
pub const ANIMATIONS: &str = "animations";

/// `scene_extras` with the `retroanim` namespace of each of `animations` recorded in the
/// scene's namespace, as `animations: [{"name": …, "hmd": {…}}, …]` (the animation's name and
/// its format members), for clients that keep a scene's extras but drop an animation's
/// (Blender: `docs/blender.md`). Animations without a namespace are not listed; without any,
/// `scene_extras` is returned as it is.
pub fn with_animation_records<'a>(
    scene_extras: &Value,
    animations: impl IntoIterator<Item = &'a super::Animation>,
) -> Value {
    let list: Vec<Value> = animations
        .into_iter()
        .filter_map(|a| {
            let ns = namespace(&a.extras)?;
            let mut entry = serde_json::Map::new();
            entry.insert("name".into(), json!(a.name));
            for (k, v) in ns.iter().filter(|(k, _)| k.as_str() != "version") {
                entry.insert(k.clone(), v.clone());
            }
            Some(Value::Object(entry))
        })
        .collect();
    let mut out = scene_extras.clone();
    if list.is_empty() {
        return out;
    }
    if !out.is_object() {
        out = json!({});
    }
    let ns = &mut out[KEY];
    if !ns.is_object() {
        *ns = json!({ "version": VERSION });
    }
    ns["version"] = json!(VERSION);
    ns[ANIMATIONS] = Value::Array(list);
    out
}

/// What [`with_animation_records`] recorded in a scene's `extras`: (name, the animation's extras
/// with its namespace), in order; entries that are not objects with a string name are skipped.
pub fn animation_records(scene_extras: &Value) -> Vec<(String, Value)> {
    let Some(list) = namespace(scene_extras)
        .and_then(|ns| ns.get(ANIMATIONS))
        .and_then(|v| v.as_array())
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|e| {
            let e = e.as_object()?;
            let name = e.get("name")?.as_str()?.to_string();
            let mut ns = serde_json::Map::new();
            ns.insert("version".into(), json!(VERSION));
            for (k, v) in e.iter().filter(|(k, _)| k.as_str() != "name") {
                ns.insert(k.clone(), v.clone());
            }
            Some((name, json!({ KEY: Value::Object(ns) })))
        })
        .collect()
}

/// The member of a node's namespace that records its rest transform.
pub const REST: &str = "rest";

/// `extras` with the node's rest transform recorded in its namespace, as
/// `rest: {"translation": […], "rotation": […], "scale": […]}`, when `extras` has a namespace
/// (a node of a console file's structure); else `extras` as it is. Blender has no rest pose
/// for an animated object: its exporter writes the pose at the current frame as the node's
/// transform (`docs/blender.md`).
pub fn with_rest(
    extras: &Value,
    translation: [f32; 3],
    rotation: [f32; 4],
    scale: [f32; 3],
) -> Value {
    let mut out = extras.clone();
    if namespace(&out).is_some() {
        out[KEY][REST] = json!({
            "translation": translation,
            "rotation": rotation,
            "scale": scale,
        });
    }
    out
}

/// The rest transform a node's `extras` record ([`with_rest`]): (translation, rotation,
/// scale), each `None` when missing or not a list of that many finite numbers.
#[allow(clippy::type_complexity)]
pub fn rest(extras: &Value) -> (Option<[f32; 3]>, Option<[f32; 4]>, Option<[f32; 3]>) {
    let Some(r) = namespace(extras).and_then(|ns| ns.get(REST)) else {
        return (None, None, None);
    };
    fn floats<const N: usize>(v: Option<&Value>) -> Option<[f32; N]> {
        let list = v?.as_array()?;
        if list.len() != N {
            return None;
        }
        let mut out = [0.0f32; N];
        for (o, x) in out.iter_mut().zip(list) {
            *o = x.as_f64().filter(|f| f.is_finite())? as f32;
        }
        Some(out)
    }
    (
        floats(r.get("translation")),
        floats(r.get("rotation")),
        floats(r.get("scale")),
    )
}
