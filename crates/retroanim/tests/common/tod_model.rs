//! The TMD a corpus TOD animates, for the tests and the authoring bench (which includes this
//! file by path).

use std::path::Path;

use retroanim::formats::{tmd, tod};

/// The one TMD of the TOD's folder, or of a sibling `TMD` folder, that has every TMD ID the
/// TOD uses (`tmds`: the corpus's TMD files); `None` when there is none or more than one.
pub fn model_for<'a>(
    tod_path: &Path,
    anim: &tod::Tod,
    tmds: impl IntoIterator<Item = &'a Path>,
) -> Option<tmd::Tmd> {
    let dir = tod_path.parent()?;
    let sibling = dir.parent().map(|p| p.join("TMD"));
    let want = retroanim::assemble::tmd_ids(anim)
        .into_iter()
        .max()
        .unwrap_or(0);
    let models: Vec<tmd::Tmd> = tmds
        .into_iter()
        .filter(|p| p.parent() == Some(dir) || p.parent() == sibling.as_deref())
        .filter_map(|p| tmd::read(&std::fs::read(p).ok()?).ok())
        .filter(|m| m.objects.len() as u32 >= want)
        .collect();
    (models.len() == 1)
        .then(|| models.into_iter().next())
        .flatten()
}
