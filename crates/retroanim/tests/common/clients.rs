//! The job and output files the client checks (`tests/blender/*.py`, `tools/threejs-check/*.mjs`)
//! read and write: a JSON array of cases in, a JSON array of `{"frames": [[value per item]]}`
//! out, one entry per case.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Writes `cases` as `dir/job.json`; returns it and the output path the client writes.
pub fn write_job(dir: &Path, cases: &[Value]) -> (PathBuf, PathBuf) {
    let (job, out) = (dir.join("job.json"), dir.join("out.json"));
    std::fs::write(&job, serde_json::to_vec(cases).unwrap()).unwrap();
    (job, out)
}

/// A client's output: per case, per frame, `item(case, index, value)` of each value.
pub fn read_frames<T>(path: &Path, item: impl Fn(usize, usize, &Value) -> T) -> Vec<Vec<Vec<T>>> {
    let out: Vec<Value> = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    out.iter()
        .enumerate()
        .map(|(c, o)| {
            o["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    f.as_array()
                        .unwrap()
                        .iter()
                        .enumerate()
                        .map(|(n, v)| item(c, n, v))
                        .collect()
                })
                .collect()
        })
        .collect()
}
