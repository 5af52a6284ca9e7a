//! [`Writer`]: appends in one fixed byte order, aligns, and back-patches reserved words.

use std::marker::PhantomData;

use super::{Be, ByteOrder, Le};

/// A place in a [`Writer`]'s output reserved for a `u32` written later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a reserved word must be patched"]
pub struct Patch(usize);

/// An appending writer in one fixed byte order.
#[derive(Debug, Clone)]
pub struct Writer<E: ByteOrder> {
    buf: Vec<u8>,
    order: PhantomData<E>,
}

impl Writer<Le> {
    /// A little-endian writer.
    pub fn le() -> Self {
        Writer::with_capacity(0)
    }

    /// Appends `u32` words (one copy of memory on a little-endian machine).
    pub fn u32_words(&mut self, w: &[u32]) {
        if cfg!(target_endian = "little") {
            self.buf.extend_from_slice(bytemuck::cast_slice(w));
        } else {
            w.iter().for_each(|&x| self.u32(x));
        }
    }
}

impl Writer<Be> {
    /// A big-endian writer.
    pub fn be() -> Self {
        Writer::with_capacity(0)
    }
}

impl<E: ByteOrder> Writer<E> {
    /// A writer with room for `n` bytes reserved up front.
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(n),
            order: PhantomData,
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Appends an `i8`.
    pub fn i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&E::u16_to(v));
    }

    /// Appends `u16`s, in one pass over a buffer grown once (pixel blocks are large).
    pub fn u16s(&mut self, v: &[u16]) {
        let at = self.buf.len();
        self.buf.resize(at + 2 * v.len(), 0);
        for (d, &h) in self.buf[at..].chunks_exact_mut(2).zip(v) {
            d.copy_from_slice(&E::u16_to(h));
        }
    }

    /// Appends an `i16`.
    pub fn i16(&mut self, v: i16) {
        self.u16(v as u16);
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&E::u32_to(v));
    }

    /// Appends an `i32`.
    pub fn i32(&mut self, v: i32) {
        self.u32(v as u32);
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&E::u64_to(v));
    }

    /// Appends an `f32`.
    pub fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    /// Appends an `f64`.
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Pads with `fill` up to a multiple of `align` bytes.
    pub fn align(&mut self, align: usize, fill: u8) {
        if align > 1 {
            while self.buf.len() % align != 0 {
                self.buf.push(fill);
            }
        }
    }

    /// Reserves a `u32` to be written later with [`Writer::patch_u32`].
    pub fn reserve_u32(&mut self) -> Patch {
        let p = Patch(self.buf.len());
        self.u32(0);
        p
    }

    /// Writes a reserved `u32`.
    pub fn patch_u32(&mut self, patch: Patch, v: u32) {
        self.buf[patch.0..patch.0 + 4].copy_from_slice(&E::u32_to(v));
    }

    /// The bytes written.
    pub fn into_vec(self) -> Vec<u8> {
        self.buf
    }
}
