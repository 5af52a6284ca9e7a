//! P3D headers asking for billions of LODs, points, faces, tagg bytes or frames allocate
//! nothing big (both Rust peers abort on CWR-CE's truncated fuzz files trying to allocate
//! ~230 GB): measured with a counting allocator around the read.
#![allow(unsafe_code)] // a GlobalAlloc wrapper needs `unsafe impl`; the library itself forbids unsafe.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter sees every thread's allocations: the tests of this file take turns, so one
/// test's file reads cannot land in another's measurement.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn largest_allocation_reading(bytes: &[u8]) -> usize {
    LARGEST.store(0, Ordering::SeqCst);
    let result = retroanim::formats::p3d::read(bytes);
    let largest = LARGEST.load(Ordering::SeqCst);
    assert!(result.is_err(), "{result:?}");
    largest
}

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn huge_counts_allocate_nothing_big() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let big = 0xFFFF_FFF0;
    // LOD count.
    let mut f = b"MLOD".to_vec();
    f.extend(le(&[0x101, big]));
    assert!(largest_allocation_reading(&f) < 4096);
    // Point, normal and face counts of a P3DM LOD.
    for slot in 0..3 {
        let mut counts = [0u32; 3];
        counts[slot] = big;
        let mut f = b"MLOD".to_vec();
        f.extend(le(&[0x101, 1]));
        f.extend(b"P3DM");
        f.extend(le(&[28, 0x100, counts[0], counts[1], counts[2], 0]));
        f.extend([0u8; 64]);
        assert!(largest_allocation_reading(&f) < 4096, "count {slot}");
    }
    // A tagg's data size.
    let mut f = b"MLOD".to_vec();
    f.extend(le(&[0x101, 1]));
    f.extend(b"P3DM");
    f.extend(le(&[28, 0x100, 0, 0, 0, 0]));
    f.extend(b"TAGG\x01#Mass#\0");
    f.extend(le(&[big]));
    f.extend([0u8; 64]);
    assert!(largest_allocation_reading(&f) < 4096);
    // ODOL v7: LOD count, a compressed array's count (LZSS output) and a frame count.
    let mut f = b"ODOL".to_vec();
    f.extend(le(&[7, big]));
    assert!(largest_allocation_reading(&f) < 4096);
    let mut f = b"ODOL".to_vec();
    f.extend(le(&[7, 1, 100_000_000]));
    f.extend([0u8; 200]);
    assert!(largest_allocation_reading(&f) < 4096);
}

#[test]
fn truncated_corpus_fuzz_files_allocate_nothing_big() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (name, path) in common::corpus_files("p3d-mlod") {
        if !name.contains("/fuzz_") {
            continue;
        }
        let mut data = std::fs::read(&path).unwrap();
        assert!(largest_allocation_reading(&data) < 4096, "{name}");
        // Past the version check too: the LOD count is what asks for the ~230 GB.
        data[4..8].copy_from_slice(&0x101u32.to_le_bytes());
        assert!(largest_allocation_reading(&data) < 4096, "{name}");
    }
}
