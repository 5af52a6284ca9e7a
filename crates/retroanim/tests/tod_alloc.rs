//! A header asking for 2^32 frames (or 65535 packets) allocates nothing big: measured with a
//! counting allocator around the read.
#![allow(unsafe_code)] // a GlobalAlloc wrapper needs `unsafe impl`; the library itself forbids unsafe.

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

fn largest_allocation_reading(bytes: &[u8]) -> usize {
    LARGEST.store(0, Ordering::SeqCst);
    let result = retroanim::formats::tod::read(bytes);
    let largest = LARGEST.load(Ordering::SeqCst);
    assert!(result.is_err(), "{result:?}");
    largest
}

#[test]
fn huge_counts_allocate_nothing_big() {
    // 2^32 - 1 frames.
    let frames = [
        0x50, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert!(largest_allocation_reading(&frames) < 4096);
    // One frame announcing 65535 packets, with one present.
    let mut packets = vec![0x50, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0xff, 0xff, 0, 0, 0, 0];
    packets.extend_from_slice(&[1, 0, 8, 1]);
    assert!(largest_allocation_reading(&packets) < 4096);
    // A frame size of 65535 words after one packet.
    let mut size = vec![0x50, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 1, 0, 0, 0, 0, 0];
    size.extend_from_slice(&[1, 0, 8, 1]);
    assert!(largest_allocation_reading(&size) < 4096);
}
