//! Where the workers of one scan put what they find, skip and fail on. What is skipped is
//! counted, not stored: at most [`MAX_SKIPPED_LISTED`] entries are kept (the first by container
//! name, so the list does not depend on the order threads finish in); the others are counted
//! in [`super::Report::skipped_unlisted`]. An ISO whose records point at an embedded ISO of as
//! many records skips records squared, and memory must not grow with them.

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::savestate::SavestateVram;
use super::types::{ContainerError, Find, Skipped, Unlisted};
use crate::error::Error;

/// Most skipped entries a scan report lists by name.
pub const MAX_SKIPPED_LISTED: usize = 1000;

#[derive(Default)]
pub(super) struct Sink {
    pub finds: Mutex<Vec<Find>>,
    skipped: Mutex<SkipList>,
    pub errors: Mutex<Vec<ContainerError>>,
    pub vram: Mutex<Vec<SavestateVram>>,
}

#[derive(Default)]
struct SkipList {
    kept: BTreeSet<Skipped>,
    unlisted: Unlisted,
}

impl Sink {
    pub fn error(&self, container: &str, error: Error) {
        if let Ok(mut v) = self.errors.lock() {
            v.push(ContainerError {
                container: container.to_string(),
                error,
            });
        }
    }

    pub fn add(&self, finds: Vec<Find>) {
        if let Ok(mut v) = self.finds.lock() {
            v.extend(finds);
        }
    }

    pub fn skip(&self, container: String, size: u64, reason: &str) {
        let Ok(mut list) = self.skipped.lock() else {
            return;
        };
        let full = list.kept.len() >= MAX_SKIPPED_LISTED;
        if full && list.kept.last().is_some_and(|l| l.container <= container) {
            list.unlisted.count += 1;
            list.unlisted.bytes = list.unlisted.bytes.saturating_add(size);
            return;
        }
        list.kept.insert(Skipped {
            container,
            size,
            reason: reason.to_string(),
        });
        if list.kept.len() > MAX_SKIPPED_LISTED {
            if let Some(last) = list.kept.pop_last() {
                list.unlisted.count += 1;
                list.unlisted.bytes = list.unlisted.bytes.saturating_add(last.size);
            }
        }
    }

    /// The skipped entries kept (sorted by container) and the count of the others.
    pub fn take_skipped(&mut self) -> (Vec<Skipped>, Unlisted) {
        let list = std::mem::take(self.skipped.get_mut().unwrap_or_else(|e| e.into_inner()));
        (list.kept.into_iter().collect(), list.unlisted)
    }
}
