//! The output rule for Python and the Blender add-on: the library's [`retroanim::output`], so
//! the package has no writer of its own.

use std::path::PathBuf;

use pyo3::prelude::*;
use retroanim::output::{Outputs, Role};

/// Writes files under the library's output rule, as the CLI does: every output is claimed
/// before the first is written (so a refusal writes nothing), each is written atomically,
/// never over a FIFO, device or folder, never over one of `inputs` (unless the output is
/// `named` by the user and `force`), over an existing file only with `force` (a file already
/// holding the bytes is left as it is), and no two outputs share a name (compared without
/// case). `outputs` is a list of `(path, bytes, named)`. Returns the paths written.
#[pyfunction]
#[pyo3(signature = (outputs, inputs, force=false))]
pub(crate) fn write_outputs(
    py: Python<'_>,
    outputs: Vec<(PathBuf, Vec<u8>, bool)>,
    inputs: Vec<PathBuf>,
    force: bool,
) -> PyResult<Vec<PathBuf>> {
    py.detach(|| {
        let plan = Outputs::new(force);
        plan.inputs(inputs.iter().map(PathBuf::as_path));
        let mut claims = Vec::with_capacity(outputs.len());
        for (path, bytes, named) in &outputs {
            let role = if *named { Role::Named } else { Role::Derived };
            claims.push((plan.claim(path, role, Some(bytes))?, bytes));
        }
        for (c, bytes) in claims {
            c.write(bytes)?;
        }
        Ok::<_, retroanim::Error>(outputs.into_iter().map(|(p, _, _)| p).collect())
    })
    .map_err(crate::to_py)
}
