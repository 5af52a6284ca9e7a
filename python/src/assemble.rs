//! `assemble`: the library's assembly ([`retroanim::assemble`]) of files, folders and disc
//! images, handed to Python as the same JSON its types serialize to, with a handle that reads
//! the paired assets again.

use pyo3::prelude::*;
use retroanim::assemble::{Assembly, Source};

use crate::{json_of, to_py, PyModel};

/// Assets put together: models with the TIMs that texture them, animations with their model.
#[pyclass(name = "Assembly", module = "retroanim", frozen)]
pub(crate) struct PyAssembly {
    inner: Assembly,
}

#[pymethods]
impl PyAssembly {
    /// One dict per asset, in the scan's order: `source` (`path`, `container`, `offset`,
    /// `size`), `format`, `textures` (`source`, `confidence`, `polygons`, `cover`,
    /// `alternatives`), `model` (`source`, `confidence`, `used`, `candidates`) or `None`,
    /// `textured`, `untextured`.
    fn assets(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_of(py, &self.inner.assets)
    }

    /// What stays unmatched: `(code, message)` pairs, each message opening with its count.
    fn notes(&self) -> Vec<(&'static str, String)> {
        self.inner
            .notes
            .iter()
            .map(|n| (n.code, n.message.clone()))
            .collect()
    }

    /// The asset at `container` and `offset` read into its format's model.
    fn read(&self, py: Python<'_>, container: String, offset: u64) -> PyResult<PyModel> {
        let Some(a) = self.inner.asset_at(&container, offset) else {
            return Err(crate::option_err(
                py,
                "source",
                &format!("{container}@{offset}: not an asset of this assembly"),
            ));
        };
        let source: Source = a.source.clone();
        let size = usize::try_from(source.size).unwrap_or(usize::MAX);
        let inner = py.detach(|| self.inner.read(&source)).map_err(to_py)?;
        Ok(PyModel { inner, size })
    }

    fn __repr__(&self) -> String {
        format!(
            "<retroanim.Assembly {} assets, {} notes>",
            self.inner.assets.len(),
            self.inner.notes.len()
        )
    }
}

/// Scans `paths` (files, folders, disc images, archives) as `retroanim scan` does and
/// assembles what it finds (without holding the GIL).
#[pyfunction]
pub(crate) fn assemble(py: Python<'_>, paths: Vec<std::path::PathBuf>) -> PyAssembly {
    let inner = py.detach(|| retroanim::assemble::from_paths(&paths));
    PyAssembly { inner }
}
