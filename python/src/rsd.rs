//! RSD sets: read from a path (the PLY, MAT, GRP and TIMs beside it), summarised, validated,
//! written back and converted (a thin layer over `retroanim::formats::rsd` and
//! `retroanim::convert::rsd`).

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use retroanim::formats::rsd;

use super::{format_named, json_of, to_py};

/// A conversion's bytes and its notes as (code, message) pairs.
type Converted<'py> = (Bound<'py, PyBytes>, Vec<(&'static str, String)>);

/// An RSD set read from files.
#[pyclass(name = "RsdSet", module = "retroanim", frozen)]
pub(crate) struct PyRsdSet {
    inner: rsd::RsdSet,
}

#[pymethods]
impl PyRsdSet {
    /// The summary `retroanim info --json` prints for the set, with `ok` and `findings`.
    fn summary(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let issues = rsd::validate(&self.inner);
        let mut s = serde_json::to_value(self.inner.summary()).unwrap_or_default();
        if let Some(map) = s.as_object_mut() {
            map.insert(
                "ok".into(),
                (!retroanim::report::has_errors(&issues)).into(),
            );
            map.insert(
                "findings".into(),
                serde_json::to_value(&issues).unwrap_or_default(),
            );
        }
        json_of(py, &s)
    }

    /// The whole set (RSD, PLY, MAT, GRP models) as a dict.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_of(py, &self.inner)
    }

    /// The files the set writes: a list of (name as the RSD gives it, `""` for the RSD itself;
    /// bytes), byte-identical to the files read when unedited.
    fn write<'py>(&self, py: Python<'py>) -> PyResult<Vec<(String, Bound<'py, PyBytes>)>> {
        let files = rsd::write_set(&self.inner).map_err(to_py)?;
        Ok(files
            .into_iter()
            .map(|f| (f.name, PyBytes::new(py, &f.bytes)))
            .collect())
    }

    /// Converts the set to `to` (`"tmd"`, `"gltf"`, `"glb"`, `"json"`): (bytes, notes), notes
    /// as (code, message) pairs.
    fn convert<'py>(&self, py: Python<'py>, to: &str) -> PyResult<Converted<'py>> {
        let target = format_named("to", to)?;
        let out = retroanim::convert::rsd::convert_set(
            &self.inner,
            target,
            &retroanim::convert::Options::default(),
        )
        .map_err(to_py)?;
        Ok((
            PyBytes::new(py, &out.bytes),
            out.notes.into_iter().map(|n| (n.code, n.message)).collect(),
        ))
    }

    fn __repr__(&self) -> String {
        let s = self.inner.summary();
        format!(
            "<retroanim.RsdSet {} vertices, {} polygons>",
            s.vertices,
            s.triangles + s.quads + s.lines + s.sprites
        )
    }
}

/// Reads the RSD at `path` and the files it names from beside it. Errors name file, line and
/// column.
#[pyfunction]
pub(crate) fn read_rsd(path: std::path::PathBuf) -> PyResult<PyRsdSet> {
    let p = path.to_string_lossy();
    let inner = rsd::read_set(&p, &retroanim::lab::FsLoader).map_err(to_py)?;
    Ok(PyRsdSet { inner })
}
