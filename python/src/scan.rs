//! `scan` and `patch`: the library's scanner and patcher over files, folders and disc images.

use pyo3::prelude::*;

use crate::*;

/// One asset the scanner found (see `retroanim scan --json`).
#[pyclass(name = "Find", module = "retroanim", frozen)]
pub(crate) struct PyFind {
    inner: retroanim::scan::Find,
}

#[pymethods]
impl PyFind {
    /// The input path it was found under.
    #[getter]
    fn path(&self) -> &str {
        &self.inner.path
    }

    /// The file holding it: the input, or `input:/PATH/IN/IMAGE`.
    #[getter]
    fn container(&self) -> &str {
        &self.inner.container
    }

    /// Byte offset in its container.
    #[getter]
    fn offset(&self) -> u64 {
        self.inner.offset
    }

    /// Byte offset in the disc image file, or `None` outside disc images.
    #[getter]
    fn image_offset(&self) -> Option<u64> {
        self.inner.image_offset
    }

    /// Format name.
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format.name()
    }

    /// Size in bytes, from its own structure.
    #[getter]
    fn size(&self) -> u64 {
        self.inner.size
    }

    /// `"clean"` or `"warnings"`.
    #[getter]
    fn status(&self) -> PyResult<String> {
        match serde_json::to_value(self.inner.status) {
            Ok(serde_json::Value::String(s)) => Ok(s),
            _ => Err(RetroanimError::new_err("cannot name the status")),
        }
    }

    /// The whole record as `retroanim scan --json` prints it (a dict: `summary`,
    /// `tmd_candidates`, `contains`, ...).
    fn record(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_of(py, &self.inner)
    }

    /// The find's bytes, read again from its container (identical to `--extract`).
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.inner.bytes().map_err(to_py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The find read into its format's model.
    fn read(&self) -> PyResult<PyModel> {
        // A damaged length field (a lenient find) read as the data shows it, as the CLI does.
        let bytes = self.inner.readable_bytes().map_err(to_py)?;
        let inner = retroanim::read_as(&bytes, Some(self.inner.format), &Limits::default())
            .map_err(to_py)?;
        Ok(PyModel {
            inner,
            size: bytes.len(),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<retroanim.Find {} {} bytes at {}@{}>",
            self.inner.format, self.inner.size, self.inner.container, self.inner.offset
        )
    }
}

/// Scans files, folders and containers; returns the finds and the summary dict. With `report`,
/// also writes the browsable report there (`retroanim::gallery`) and adds `report` to the
/// summary: `index` (index.html's path), `assets`, `files` and `notes`.
#[pyfunction]
#[pyo3(signature = (paths, formats=None, align=4, min_size=0, report=None, force=false))]
pub(crate) fn scan(
    py: Python<'_>,
    paths: Vec<std::path::PathBuf>,
    formats: Option<Vec<String>>,
    align: u64,
    min_size: u64,
    report: Option<std::path::PathBuf>,
    force: bool,
) -> PyResult<(Vec<PyFind>, Py<PyAny>)> {
    let mut opts = retroanim::scan::ScanOptions::new(&formats.unwrap_or_default(), align, min_size)
        .map_err(to_py)?;
    // A savestate's VRAM textures the models of its RAM, as in `retroanim scan`: cut as each
    // savestate is scanned, and released.
    opts.vram_cutter = Some(retroanim::assemble::savestate_vram_cutter());
    let (report, written) = py.detach(|| {
        let found = retroanim::scan::scan_paths(&paths, &opts);
        let written = report.as_ref().map(|dir| {
            retroanim::gallery::write_report(
                &found,
                &paths,
                dir,
                &retroanim::gallery::Options {
                    force,
                    ..Default::default()
                },
            )
            .map(|w| (dir.join("index.html"), w))
        });
        (found, written)
    });
    let mut summary_value = report.summary();
    if let Some(w) = written {
        let (index, w) = w.map_err(to_py)?;
        summary_value["report"] = serde_json::json!({
            "index": index.display().to_string(),
            "assets": w.index.assets.len(),
            "files": w.files,
            "notes": w.index.notes,
        });
    }
    let summary = json_of(py, &summary_value)?;
    let finds = report
        .finds
        .into_iter()
        .map(|inner| PyFind { inner })
        .collect();
    Ok((finds, summary))
}

/// Puts assets back into a disc image, PBO archive or file (as `retroanim patch`): each
/// replacement is `(place, bytes)`; returns a dict of `changes`, `notes`, `grown`, `written`.
#[pyfunction]
#[pyo3(signature = (image, replacements, out, force=false, dry_run=false))]
pub(crate) fn patch(
    py: Python<'_>,
    image: std::path::PathBuf,
    replacements: Vec<(String, Vec<u8>)>,
    out: std::path::PathBuf,
    force: bool,
    dry_run: bool,
) -> PyResult<Py<PyAny>> {
    use retroanim::patch::{Options, Replacement};
    let reps: Vec<Replacement> = replacements
        .into_iter()
        .map(|(place, data)| Replacement { place, data })
        .collect();
    let opts = Options {
        force,
        dry_run,
        replace: force,
    };
    let done = py
        .detach(|| retroanim::patch::patch(&image, &reps, &out, opts))
        .map_err(to_py)?;
    let changes: Vec<serde_json::Value> = done
        .changes
        .iter()
        .map(|c| {
            serde_json::json!({
                "place": c.place, "format": c.format.name(), "old_size": c.old_size,
                "new_size": c.new_size, "how": c.how,
            })
        })
        .collect();
    json_of(
        py,
        &serde_json::json!({
            "changes": changes,
            "notes": done.notes,
            "grown": done.grown,
            "written": done.written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        }),
    )
}
