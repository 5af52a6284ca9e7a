//! `retroanim._native`: the compiled half of the `retroanim` Python package.
//!
//! A thin layer over the library: each function here reads its arguments into the library's
//! types, makes one library call and hands the result back as plain Python values. The
//! Python half (`retroanim/__init__.py`) opens paths, writes files atomically and shapes play
//! results into numpy arrays. Playback results cross as the same JSON the command line's
//! `play --json` prints, so the two cannot drift apart.

mod assemble;
mod output;
mod play;
mod rsd;
mod scan;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use retroanim::convert::{self, Options};
use retroanim::formats::tod;
use retroanim::{Format, Limits};

create_exception!(
    _native,
    RetroanimError,
    PyException,
    "Base of every retroanim error; `.message` says what went wrong."
);
create_exception!(
    _native,
    MalformedError,
    RetroanimError,
    "The input breaks its format: `.format`, `.offset` (absolute byte offset), `.message`."
);
create_exception!(
    _native,
    UnsupportedError,
    RetroanimError,
    "The input uses a feature retroanim does not read: `.format`, `.offset`, `.message`."
);
create_exception!(
    _native,
    UnknownFormatError,
    RetroanimError,
    "No known format was recognised in the input."
);
create_exception!(
    _native,
    LimitError,
    RetroanimError,
    "The input asks for more than the resource limits allow: `.requested`, `.limit`."
);
create_exception!(
    _native,
    UnencodableError,
    RetroanimError,
    "A model cannot be written because a value does not fit its format: `.format`."
);
create_exception!(
    _native,
    OptionError,
    RetroanimError,
    "An option does not apply or is out of range: `.option` names it (as the CLI spells it)."
);
create_exception!(
    _native,
    ConversionError,
    RetroanimError,
    "retroanim offers no such conversion: `.format` (source) and `.target`."
);

/// Sets the attributes every retroanim exception carries, then the kind's own.
fn raise(
    py: Python<'_>,
    err: PyErr,
    message: &str,
    format: Option<Format>,
    offset: Option<u64>,
    extra: &[(&str, Py<PyAny>)],
) -> PyErr {
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("message", message)?;
        value.setattr("format", format.map(Format::name))?;
        value.setattr("offset", offset)?;
        for (k, v) in extra {
            value.setattr(*k, v)?;
        }
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The Python exception for a library error.
pub(crate) fn to_py(e: retroanim::Error) -> PyErr {
    use retroanim::Error as E;
    let text = e.to_string();
    Python::attach(|py| match e {
        E::Malformed {
            format,
            offset,
            what,
        } => raise(
            py,
            MalformedError::new_err(text),
            &what,
            Some(format),
            Some(offset),
            &[],
        ),
        E::Unsupported {
            format,
            offset,
            feature,
        } => raise(
            py,
            UnsupportedError::new_err(text),
            &feature,
            Some(format),
            Some(offset),
            &[],
        ),
        E::UnknownFormat(what) => raise(
            py,
            UnknownFormatError::new_err(text),
            &what,
            None,
            None,
            &[],
        ),
        E::LimitExceeded {
            offset,
            what,
            requested,
            limit,
        } => {
            let extra = [
                (
                    "requested",
                    requested.into_pyobject(py).unwrap().into_any().unbind(),
                ),
                (
                    "limit",
                    limit.into_pyobject(py).unwrap().into_any().unbind(),
                ),
            ];
            raise(py, LimitError::new_err(text), &what, None, offset, &extra)
        }
        E::Unencodable { format, what } => raise(
            py,
            UnencodableError::new_err(text),
            &what,
            Some(format),
            None,
            &[],
        ),
        E::InconsistentScene { format, problems } => {
            // Every problem as a (path, what) pair, in the order found.
            let list: Vec<(String, String)> =
                problems.into_iter().map(|p| (p.path, p.what)).collect();
            let extra = [(
                "problems",
                list.into_pyobject(py).unwrap().into_any().unbind(),
            )];
            raise(
                py,
                UnencodableError::new_err(text.clone()),
                &text,
                Some(format),
                None,
                &extra,
            )
        }
        E::Option { option, what } => option_err(py, option, &what),
        // The output rule refused a file: the caller's `out` (or what it puts beside it).
        E::Refused { .. } => option_err(py, "out", &text),
        E::Conversion { from, to, why } => {
            let extra = [(
                "target",
                to.name().into_pyobject(py).unwrap().into_any().unbind(),
            )];
            raise(
                py,
                ConversionError::new_err(text),
                &why,
                Some(from),
                None,
                &extra,
            )
        }
        other => {
            let text = other.to_string();
            raise(
                py,
                RetroanimError::new_err(text.clone()),
                &text,
                None,
                None,
                &[],
            )
        }
    })
}

/// An [`OptionError`] for `option` (spelt as on the command line).
fn option_err(py: Python<'_>, option: &str, what: &str) -> PyErr {
    let extra = [(
        "option",
        option.into_pyobject(py).unwrap().into_any().unbind(),
    )];
    raise(
        py,
        OptionError::new_err(format!("--{option}: {what}")),
        what,
        None,
        None,
        &extra,
    )
}

fn option_error(option: &str, what: &str) -> PyErr {
    Python::attach(|py| option_err(py, option, what))
}

/// A format by name (`"tod"`, `".glb"`).
fn format_named(option: &str, name: &str) -> PyResult<Format> {
    Format::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        option_error(
            option,
            &format!("{name:?} is not a format (known: {})", known.join(", ")),
        )
    })
}

/// Parses JSON text into Python values.
fn json_value(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

fn json_of<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(v)
        .map_err(|e| RetroanimError::new_err(format!("cannot encode as JSON: {e}")))?;
    json_value(py, &text)
}

/// A file read into its format's model.
#[pyclass(name = "Model", module = "retroanim", frozen)]
struct PyModel {
    inner: retroanim::Model,
    /// The size of the bytes it was read from (`info` reports it).
    size: usize,
}

#[pymethods]
impl PyModel {
    /// The model's format name (`"tod"`, `"hmd"`, `"p3d"`, ...).
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format().name()
    }

    /// The line `retroanim info --json` prints for the file, as a dict, less its `path`: the
    /// `format`, `ok` (no finding of severity error), the summary's fields, `bytes` (the size of
    /// the input it was read from) and `findings` (the dicts of `validate()`).
    fn summary(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut s = self.inner.summary();
        let issues = self.inner.validate();
        if let Some(map) = s.as_object_mut() {
            map.insert(
                "ok".into(),
                (!retroanim::report::has_errors(&issues)).into(),
            );
            map.insert("bytes".into(), self.size.into());
            map.insert(
                "findings".into(),
                serde_json::to_value(&issues).unwrap_or_default(),
            );
        }
        json_of(py, &s)
    }

    /// Every validation finding, as a list of `Finding`.
    fn validate(&self) -> Vec<Finding> {
        self.inner
            .validate()
            .into_iter()
            .map(|i| Finding {
                severity: i.severity.to_string(),
                offset: i.offset,
                code: i.code,
                message: i.message,
            })
            .collect()
    }

    /// The model written in its own format (byte-identical to the input for an unedited file).
    fn write<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.inner.write().map_err(to_py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The whole model as JSON text (`retroanim dump --json`).
    fn to_json(&self) -> PyResult<String> {
        self.inner.to_json().map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!(
            "<retroanim.Model {} ({} bytes)>",
            self.inner.format(),
            self.size
        )
    }
}

/// One validation finding.
#[pyclass(module = "retroanim", frozen, get_all)]
struct Finding {
    /// `"info"`, `"warning"` or `"error"`.
    severity: String,
    /// Absolute byte offset in the file.
    offset: u64,
    /// Stable short identifier of the kind of finding, e.g. `frame-size`.
    code: String,
    /// What was found and what was expected.
    message: String,
}

#[pymethods]
impl Finding {
    /// The finding as an entry of a `--json` line's `findings`: a dict with `code`,
    /// `severity`, `offset` and `message`.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_of(
            py,
            &serde_json::json!({
                "code": self.code,
                "severity": self.severity,
                "offset": self.offset,
                "message": self.message,
            }),
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Finding({:?}, offset={}, code={:?}, message={:?})",
            self.severity, self.offset, self.code, self.message
        )
    }

    fn __str__(&self) -> String {
        format!(
            "{} at byte {} (0x{:x}) [{}]: {}",
            self.severity, self.offset, self.offset, self.code, self.message
        )
    }
}

/// Reads `data` as `from_` when given, else as the format its content shows.
#[pyfunction]
#[pyo3(signature = (data, from_=None))]
fn read(data: &[u8], from_: Option<&str>) -> PyResult<PyModel> {
    let format = from_.map(|f| format_named("from", f)).transpose()?;
    let inner = retroanim::read_as(data, format, &Limits::default()).map_err(to_py)?;
    Ok(PyModel {
        inner,
        size: data.len(),
    })
}

/// The bytes of the file at `path`, through the library's one limited reader
/// (`retroanim::input::read_input`): at most `Limits::max_input_bytes`; a larger file is refused
/// from its size before it is read, a device or pipe stops at the limit.
#[pyfunction]
fn read_file<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyBytes>> {
    // A file that cannot be opened raises the OSError of its kind (FileNotFoundError, …), as
    // Python's own `open` would; what the reader refuses raises the library's errors.
    let data = retroanim::input::read_input(&path, Limits::default().max_input_bytes).map_err(
        |e| match e {
            retroanim::Error::Io(io) => PyErr::from(io),
            other => to_py(other),
        },
    )?;
    Ok(PyBytes::new(py, &data))
}

/// Picture bytes, pictures in it, notes `(code, message)`.
type RenderedTuple = (Vec<u8>, usize, Vec<(&'static str, String)>);

/// Draws a file's bytes as the console draws them (`retroanim::render::render_file`); returns
/// the picture bytes, the number of pictures in it and the notes `(code, message)`.
#[pyfunction]
#[pyo3(signature = (
    data, *, tmd=None, tim=Vec::new(), vram=false, yaw=None, pitch=None, distance=None,
    size=None, frames=None, fps=None, background=None, output="png", sequence=None,
    stream_id=None, lod=None, named=None, weights=None, vdf=None, ndf=None
))]
#[allow(clippy::too_many_arguments)]
fn render_bytes(
    data: &[u8],
    tmd: Option<PyRef<'_, PyModel>>,
    tim: Vec<PyRef<'_, PyModel>>,
    vram: bool,
    yaw: Option<f64>,
    pitch: Option<f64>,
    distance: Option<f64>,
    size: Option<(u32, u32)>,
    frames: Option<(u32, u32)>,
    fps: Option<f64>,
    background: Option<(u8, u8, u8)>,
    output: &str,
    sequence: Option<usize>,
    stream_id: Option<u8>,
    lod: Option<f64>,
    named: Option<&str>,
    weights: Option<std::collections::BTreeMap<usize, i32>>,
    vdf: Option<PyRef<'_, PyModel>>,
    ndf: Option<PyRef<'_, PyModel>>,
) -> PyResult<RenderedTuple> {
    use retroanim::render::{Input, OutputKind, RenderOptions, View};
    // A VDF/NDF (no magic number) is read as its file's name says; its weights, key → weight,
    // become one per key as `render --weights` makes them.
    let named = named.map(|n| format_named("from_", n)).transpose()?;
    let weights = match weights {
        None => None,
        Some(map) => {
            let keys = match named.map(|f| retroanim::read_as(data, Some(f), &Limits::default())) {
                Some(Ok(retroanim::Model::Vdf(d) | retroanim::Model::Ndf(d))) => d.blocks.len(),
                _ => {
                    return Err(option_error(
                        "weights",
                        "weigh the keys of a MIMe VDF/NDF (a .vdf/.ndf file)",
                    ))
                }
            };
            let mut w = vec![0; keys];
            for (k, v) in map {
                *w.get_mut(k).ok_or_else(|| {
                    option_error(
                        "weights",
                        &format!("key {k}, but the file has {keys} keys (0..{keys})"),
                    )
                })? = v;
            }
            Some(w)
        }
    };
    let mut view = View::default();
    view.yaw = yaw;
    view.pitch = pitch.unwrap_or(view.pitch);
    view.distance = distance.unwrap_or(view.distance);
    if let Some((w, h)) = size {
        view.width = w;
        view.height = h;
    }
    if let Some((r, g, b)) = background {
        view.background = [r, g, b];
    }
    let tmd = match tmd {
        None => None,
        Some(m) => match model_of(&m, "tmd", Format::Tmd)? {
            retroanim::Model::Tmd(t) => Some(t.clone()),
            _ => None,
        },
    };
    let mut tims = Vec::new();
    for t in &tim {
        if let retroanim::Model::Tim(x) = model_of(t, "tim", Format::Tim)? {
            tims.push(x.clone());
        }
    }
    let output = OutputKind::from_path(std::path::Path::new(&format!("x.{output}")))
        .ok_or_else(|| option_error("output", "expected png, gif or webp"))?;
    let opts = RenderOptions {
        view,
        view_set: yaw.is_some()
            || pitch.is_some()
            || distance.is_some()
            || size.is_some()
            || background.is_some(),
        tims,
        tmd,
        weights,
        mime_partner: match (vdf, ndf) {
            (Some(_), Some(_)) => {
                return Err(option_error(
                    "vdf",
                    "vdf and ndf: give the one the input is not",
                ))
            }
            (Some(m), None) => match model_of(&m, "vdf", Format::Vdf)? {
                retroanim::Model::Vdf(d) => Some(d.clone()),
                _ => None,
            },
            (None, Some(m)) => match model_of(&m, "ndf", Format::Ndf)? {
                retroanim::Model::Ndf(d) => Some(d.clone()),
                _ => None,
            },
            (None, None) => None,
        },
        frames,
        fps,
        sequence,
        stream_id,
        lod,
        preview: None,
        input: match (vram, named) {
            (true, _) => Input::VramDump,
            (false, Some(f)) => Input::Named(f),
            (false, None) => Input::Detect,
        },
        output,
        limits: Limits::default(),
    };
    let r = retroanim::render::render_file(data, &opts).map_err(to_py)?;
    let notes = r.notes.into_iter().map(|n| (n.code, n.message)).collect();
    Ok((r.bytes, r.frames, notes))
}

/// The name a conversion gives what it makes of the file at `path` (as the CLI, scan and the
/// report name it: `retroanim::assemble::Source::name_of_file`).
#[pyfunction]
fn scene_name(path: &str) -> String {
    retroanim::assemble::Source::name_of_file(path)
}

/// The formats `format` converts to.
#[pyfunction]
fn targets(format: &str) -> PyResult<Vec<&'static str>> {
    let f = format_named("format", format)?;
    Ok(convert::targets(f).iter().map(|t| t.name()).collect())
}

/// The model inside `m`, which must be of `want` for option `option`.
fn model_of<'a>(m: &'a PyModel, option: &str, want: Format) -> PyResult<&'a retroanim::Model> {
    if m.inner.format() == want {
        Ok(&m.inner)
    } else {
        Err(option_error(
            option,
            &format!("a {} model; {option} needs a {want}", m.inner.format()),
        ))
    }
}

fn tmd_of(m: &PyModel) -> PyResult<retroanim::formats::tmd::Tmd> {
    match model_of(m, "tmd", Format::Tmd)? {
        retroanim::Model::Tmd(t) => Ok(t.clone()),
        _ => unreachable!("model_of checked the format"),
    }
}

fn tods_of(ms: &[PyRef<'_, PyModel>]) -> PyResult<Vec<tod::Tod>> {
    ms.iter()
        .map(|m| match model_of(m, "after", Format::Tod)? {
            retroanim::Model::Tod(t) => Ok(t.clone()),
            _ => unreachable!("model_of checked the format"),
        })
        .collect()
}

/// What [`convert_model`] returns: the bytes, the target's name, the notes as (code, message),
/// and the files that go beside the output as (suffix, format name, bytes, path beside `out`).
type Converted<'py> = (
    Bound<'py, PyBytes>,
    &'static str,
    Vec<(&'static str, String)>,
    Vec<(String, &'static str, Bound<'py, PyBytes>, Option<String>)>,
);

/// What a conversion starts from: a model already read, or a file's bytes (read here, the
/// format detected or forced; glTF sources only convert this way).
#[derive(FromPyObject)]
enum Source<'py> {
    Model(PyRef<'py, PyModel>),
    Bytes(Vec<u8>),
}

/// Converts `source` (a model or a file's bytes) to `target`; returns `(bytes, target name,
/// [(code, message)], [(suffix, format, bytes, path)])`, the last the files the conversion
/// makes beside its output (glTF → TMD/TOD: the TMD and TIMs), with the path each goes to
/// beside `out` when given (named as the CLI names them).
#[pyfunction]
#[pyo3(signature = (
    source, target, *, from_=None, axes=None, scale=None, fps=None, duration=None, smooth=false,
    tmd=None, after=Vec::new(), tim=Vec::new(), clut=None, semi_transparent=false, sequence=None,
    stream_id=None, speed=None, lod=None, base=None, animation=None, name=None, out=None,
    intr_idx=None, resolution=None, bpp=None, vram=None, clut_at=None, clt=None, skeleton=None,
    vdf=None, ndf=None, mime_weights=None, p3d=None, start=None, rest=None
))]
#[allow(clippy::too_many_arguments)]
fn convert_model<'py>(
    py: Python<'py>,
    source: Source<'py>,
    target: &str,
    from_: Option<&str>,
    axes: Option<&str>,
    scale: Option<f32>,
    fps: Option<f32>,
    duration: Option<f32>,
    smooth: bool,
    tmd: Option<PyRef<'_, PyModel>>,
    after: Vec<PyRef<'_, PyModel>>,
    tim: Vec<PyRef<'_, PyModel>>,
    clut: Option<usize>,
    semi_transparent: bool,
    sequence: Option<usize>,
    stream_id: Option<u8>,
    speed: Option<f64>,
    lod: Option<f64>,
    base: Option<PyRef<'_, PyModel>>,
    animation: Option<usize>,
    name: Option<String>,
    out: Option<std::path::PathBuf>,
    intr_idx: Option<u16>,
    resolution: Option<u16>,
    bpp: Option<u8>,
    vram: Option<(u16, u16)>,
    clut_at: Option<(u16, u16)>,
    clt: Option<PyRef<'_, PyModel>>,
    skeleton: Option<String>,
    vdf: Option<PyRef<'_, PyModel>>,
    ndf: Option<PyRef<'_, PyModel>>,
    mime_weights: Option<Vec<Vec<i32>>>,
    p3d: Option<PyRef<'_, PyModel>>,
    start: Option<f32>,
    rest: Option<&str>,
) -> PyResult<Converted<'py>> {
    let target = format_named("to", target)?;
    let mut o = Options::default();
    o.geometry.axes = match axes {
        None => None,
        Some("default") => Some(convert::Axes::Default),
        Some("raw") => Some(convert::Axes::Raw),
        Some(other) => {
            return Err(option_error(
                "axes",
                &format!("{other:?}: expected \"default\" or \"raw\""),
            ))
        }
    };
    o.geometry.scale = scale;
    o.timing.fps = fps;
    o.timing.duration = duration;
    o.timing.start = start;
    o.rtm.rest = match rest {
        None => None,
        Some("origin") => Some(retroanim::formats::rtm::Rest::Origin),
        Some("bind") => Some(retroanim::formats::rtm::Rest::Bind),
        Some(other) => {
            return Err(option_error(
                "rest",
                &format!("{other:?}: expected \"origin\" or \"bind\""),
            ))
        }
    };
    o.timing.smooth = smooth;
    o.tod.tmd = tmd.as_deref().map(tmd_of).transpose()?;
    o.tod.after = tods_of(&after)?;
    for t in &tim {
        match model_of(t, "tim", Format::Tim)? {
            retroanim::Model::Tim(t) => o.textures.tims.push(t.clone()),
            _ => unreachable!("model_of checked the format"),
        }
    }
    o.textures.clut = clut;
    o.textures.semi_transparent = semi_transparent;
    o.hmd.sequence = sequence;
    o.hmd.stream_id = stream_id;
    o.hmd.speed = speed;
    o.hmd.intr_idx = intr_idx;
    o.tod.resolution = resolution;
    o.textures.bpp = bpp;
    o.textures.vram = vram;
    o.textures.clut_at = clut_at;
    if let Some(c) = clt.as_deref() {
        match model_of(c, "clt", Format::Clt)? {
            retroanim::Model::Clt(c) => o.textures.clt = Some(c.clone()),
            _ => unreachable!("model_of checked the format"),
        }
    }
    o.p3d.lod = lod;
    if let Some(b) = base.as_deref() {
        match model_of(b, "base", Format::P3d)? {
            retroanim::Model::P3d(p) => o.p3d.base = Some(p.clone()),
            _ => unreachable!("model_of checked the format"),
        }
    }
    for (m, name, format) in [(&vdf, "vdf", Format::Vdf), (&ndf, "ndf", Format::Ndf)] {
        if let Some(m) = m.as_deref() {
            let d = match model_of(m, name, format)? {
                retroanim::Model::Vdf(d) | retroanim::Model::Ndf(d) => d.clone(),
                _ => unreachable!("model_of checked the format"),
            };
            match format {
                Format::Vdf => o.mime.vdf = Some(d),
                _ => o.mime.ndf = Some(d),
            }
        }
    }
    o.mime.weights = mime_weights;
    o.animation = animation;
    o.name = name;
    if let Some(m) = p3d.as_deref() {
        match model_of(m, "p3d", Format::P3d)? {
            retroanim::Model::P3d(p) => o.rtm.p3d = Some(p.clone()),
            _ => unreachable!("model_of checked the format"),
        }
    }
    if let Some(text) = skeleton {
        o.rtm.skeletons =
            Some(retroanim::formats::rtm::skeleton::parse_model_cfg(&text).map_err(to_py)?);
    }
    let done = match &source {
        Source::Model(m) => convert::convert(&m.inner, target, &o),
        Source::Bytes(data) => {
            let from = from_.map(|f| format_named("from_", f)).transpose()?;
            convert::convert_bytes(data, from, target, &o)
        }
    }
    .map_err(to_py)?;
    let extra = done
        .extra
        .iter()
        .map(|e| {
            (
                e.suffix.clone(),
                e.format.name(),
                PyBytes::new(py, &e.bytes),
                out.as_deref()
                    .map(|o| e.path_beside(o).to_string_lossy().into_owned()),
            )
        })
        .collect();
    let notes = done
        .notes
        .into_iter()
        .map(|n| (n.code, n.message))
        .collect();
    Ok((
        PyBytes::new(py, &done.bytes),
        done.format.name(),
        notes,
        extra,
    ))
}

/// The compiled half of the `retroanim` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyModel>()?;
    m.add_class::<Finding>()?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(read_file, m)?)?;
    m.add_function(wrap_pyfunction!(targets, m)?)?;
    m.add_function(wrap_pyfunction!(scene_name, m)?)?;
    m.add_function(wrap_pyfunction!(render_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(play::play_tod, m)?)?;
    m.add_function(wrap_pyfunction!(play::play_mime, m)?)?;
    m.add_function(wrap_pyfunction!(play::play_hmd, m)?)?;
    m.add_function(wrap_pyfunction!(play::play_rtm, m)?)?;
    m.add_function(wrap_pyfunction!(convert_model, m)?)?;
    m.add_class::<scan::PyFind>()?;
    m.add_function(wrap_pyfunction!(scan::scan, m)?)?;
    m.add_function(wrap_pyfunction!(scan::patch, m)?)?;
    m.add_class::<assemble::PyAssembly>()?;
    m.add_function(wrap_pyfunction!(assemble::assemble, m)?)?;
    m.add_function(wrap_pyfunction!(output::write_outputs, m)?)?;
    m.add_class::<rsd::PyRsdSet>()?;
    m.add_function(wrap_pyfunction!(rsd::read_rsd, m)?)?;
    m.add(
        "FORMATS",
        Format::ALL.iter().map(|f| f.name()).collect::<Vec<_>>(),
    )?;
    m.add("RetroanimError", py.get_type::<RetroanimError>())?;
    m.add("MalformedError", py.get_type::<MalformedError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("UnknownFormatError", py.get_type::<UnknownFormatError>())?;
    m.add("LimitError", py.get_type::<LimitError>())?;
    m.add("UnencodableError", py.get_type::<UnencodableError>())?;
    m.add("OptionError", py.get_type::<OptionError>())?;
    m.add("ConversionError", py.get_type::<ConversionError>())?;
    Ok(())
}
