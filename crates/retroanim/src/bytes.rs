//! The byte layer: the only code that touches raw bytes.
//!
//! A [`Reader`] walks a `&[u8]` in the byte order its format fixes once ([`Reader::le`] or
//! [`Reader::be`]); every read is bounds-checked and every error carries the absolute byte offset
//! in the original input. Counts read from a file go through [`Reader::count`], which checks them
//! against the bytes left (and the caller's [`Limits`]) before anything is allocated.
//!
//! A [`Writer`] appends in the same fixed byte order, aligns, and back-patches words whose value
//! is known only later (sizes, pointers).
//!
//! Where a cursor does not fit (pre-tests, pointer tables, in-place patches), [`ByteOrder`]'s
//! `u16_at`/`u32_at`/`u64_at`/`f32_at` read and `put_u16`/`put_u32` overwrite at a byte index, returning
//! `None` past the end; [`le_tag`] gives a four-character tag's word for constants.

mod words;
mod writer;

pub use words::Words;
pub use writer::{Patch, Writer};

use std::borrow::Cow;
use std::marker::PhantomData;

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::Format;

/// A byte order, fixed per format.
pub trait ByteOrder: Copy + std::fmt::Debug {
    /// Decodes a `u16`.
    fn u16_from(b: [u8; 2]) -> u16;
    /// Decodes a `u32`.
    fn u32_from(b: [u8; 4]) -> u32;
    /// Decodes a `u64`.
    fn u64_from(b: [u8; 8]) -> u64;
    /// Encodes a `u16`.
    fn u16_to(v: u16) -> [u8; 2];
    /// Encodes a `u32`.
    fn u32_to(v: u32) -> [u8; 4];
    /// Encodes a `u64`.
    fn u64_to(v: u64) -> [u8; 8];

    /// The `u16` at byte `at` of `b`, or `None` where it would run past the end: random
    /// access for pre-tests, pointer tables and patches (`Le::u16_at(sector, 128)`), where a
    /// [`Reader`]'s cursor and errors do not fit.
    fn u16_at(b: &[u8], at: usize) -> Option<u16> {
        b.get(at..at.checked_add(2)?)?
            .try_into()
            .ok()
            .map(Self::u16_from)
    }

    /// The `u32` at byte `at` of `b`, or `None` where it would run past the end.
    fn u32_at(b: &[u8], at: usize) -> Option<u32> {
        b.get(at..at.checked_add(4)?)?
            .try_into()
            .ok()
            .map(Self::u32_from)
    }

    /// Encodes an `f32`.
    fn f32_to(v: f32) -> [u8; 4] {
        Self::u32_to(v.to_bits())
    }

    /// The `u64` at byte `at` of `b`, or `None` where it would run past the end.
    fn u64_at(b: &[u8], at: usize) -> Option<u64> {
        b.get(at..at.checked_add(8)?)?
            .try_into()
            .ok()
            .map(Self::u64_from)
    }

    /// The `f32` at byte `at` of `b`, or `None` where it would run past the end.
    fn f32_at(b: &[u8], at: usize) -> Option<f32> {
        Self::u32_at(b, at).map(f32::from_bits)
    }

    /// The `u16`s of `b`, two bytes each (a trailing odd byte is ignored): arrays whose length
    /// was checked before (by [`Reader::count`] and [`Reader::bytes`]).
    fn u16s(b: &[u8]) -> impl Iterator<Item = u16> + '_ {
        b.chunks_exact(2).map(|c| Self::u16_from([c[0], c[1]]))
    }

    /// The `u32`s of `b`, four bytes each (trailing bytes are ignored).
    fn u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
        b.chunks_exact(4)
            .map(|c| Self::u32_from([c[0], c[1], c[2], c[3]]))
    }

    /// The `f32`s of `b`, four bytes each (trailing bytes are ignored).
    fn f32s(b: &[u8]) -> impl Iterator<Item = f32> + '_ {
        Self::u32s(b).map(f32::from_bits)
    }

    /// Overwrites the `u16` at byte `at` of `b` in place; `None` (nothing written) where it
    /// would run past the end.
    fn put_u16(b: &mut [u8], at: usize, v: u16) -> Option<()> {
        b.get_mut(at..at.checked_add(2)?)?
            .copy_from_slice(&Self::u16_to(v));
        Some(())
    }

    /// Overwrites the `u32` at byte `at` of `b` in place; `None` (nothing written) where it
    /// would run past the end.
    fn put_u32(b: &mut [u8], at: usize, v: u32) -> Option<()> {
        b.get_mut(at..at.checked_add(4)?)?
            .copy_from_slice(&Self::u32_to(v));
        Some(())
    }
}

/// Little-endian (PlayStation, P3D, PC2).
#[derive(Debug, Clone, Copy)]
pub struct Le;

/// Big-endian (MDD).
#[derive(Debug, Clone, Copy)]
pub struct Be;

impl ByteOrder for Le {
    fn u16_from(b: [u8; 2]) -> u16 {
        u16::from_le_bytes(b)
    }
    fn u32_from(b: [u8; 4]) -> u32 {
        u32::from_le_bytes(b)
    }
    fn u64_from(b: [u8; 8]) -> u64 {
        u64::from_le_bytes(b)
    }
    fn u16_to(v: u16) -> [u8; 2] {
        v.to_le_bytes()
    }
    fn u32_to(v: u32) -> [u8; 4] {
        v.to_le_bytes()
    }
    fn u64_to(v: u64) -> [u8; 8] {
        v.to_le_bytes()
    }
}

impl ByteOrder for Be {
    fn u16_from(b: [u8; 2]) -> u16 {
        u16::from_be_bytes(b)
    }
    fn u32_from(b: [u8; 4]) -> u32 {
        u32::from_be_bytes(b)
    }
    fn u64_from(b: [u8; 8]) -> u64 {
        u64::from_be_bytes(b)
    }
    fn u16_to(v: u16) -> [u8; 2] {
        v.to_be_bytes()
    }
    fn u32_to(v: u32) -> [u8; 4] {
        v.to_be_bytes()
    }
    fn u64_to(v: u64) -> [u8; 8] {
        v.to_be_bytes()
    }
}

/// A bounds-checked cursor over a byte slice in one fixed byte order.
#[derive(Debug, Clone)]
pub struct Reader<'a, E: ByteOrder> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    /// Absolute offset of the last field read: where a count that turns out too large sits.
    last_field: u64,
    format: Format,
    limits: Limits,
    order: PhantomData<E>,
}

impl<'a> Reader<'a, Le> {
    /// A little-endian reader over the whole input.
    pub fn le(data: &'a [u8], format: Format) -> Self {
        Reader::new(data, format)
    }

    /// `n` little-endian `u32` words (`n` already checked, e.g. by [`Reader::count`]). On a
    /// little-endian machine, bytes that start on a 4-byte boundary are the words already and
    /// are borrowed; otherwise they are converted in one pass.
    pub fn u32_words(&mut self, n: usize, what: &str) -> Result<Cow<'a, [u32]>> {
        let len = n
            .checked_mul(4)
            .ok_or_else(|| self.malformed(format!("{what}: {n} words")))?;
        let b = self.bytes(len, what)?;
        if cfg!(target_endian = "little") {
            if let Ok(w) = bytemuck::try_cast_slice(b) {
                return Ok(Cow::Borrowed(w));
            }
        }
        Ok(Cow::Owned(
            b.chunks_exact(4)
                .map(|c| c.try_into().map_or(0, u32::from_le_bytes))
                .collect(),
        ))
    }

    /// `n` little-endian `u16` halfwords, copied in one pass (`n` already checked, e.g. by
    /// [`Reader::count`]).
    pub fn u16_halfwords(&mut self, n: usize, what: &str) -> Result<Vec<u16>> {
        let len = n
            .checked_mul(2)
            .ok_or_else(|| self.malformed(format!("{what}: {n} halfwords")))?;
        let b = self.bytes(len, what)?;
        // On a little-endian machine, halfword-aligned bytes are copied as they are (one
        // memcpy); otherwise each halfword is put together.
        if cfg!(target_endian = "little") {
            if let Ok(h) = bytemuck::try_cast_slice::<u8, u16>(b) {
                return Ok(h.to_vec());
            }
        }
        Ok(b.chunks_exact(2)
            .map(|h| u16::from_le_bytes([h[0], h[1]]))
            .collect())
    }
}

/// A four-character tag (`b"MLOD"`) as the little-endian word a file holds it as: usable in
/// constants, for compares against words already read (the scanner's pre-test).
pub const fn le_tag(tag: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*tag)
}

/// The halfwords of little-endian words, low half first: how a PlayStation file stores
/// halfword arrays (pixels, heights, vectors) in its words. One copy on a little-endian machine.
pub fn le_halfwords(w: &[u32]) -> Vec<u16> {
    if cfg!(target_endian = "little") {
        bytemuck::cast_slice(w).to_vec()
    } else {
        w.iter()
            .flat_map(|&x| [x as u16, (x >> 16) as u16])
            .collect()
    }
}

impl<'a> Reader<'a, Be> {
    /// A big-endian reader over the whole input.
    pub fn be(data: &'a [u8], format: Format) -> Self {
        Reader::new(data, format)
    }
}

macro_rules! read_int {
    ($(#[$m:meta])* $name:ident, $t:ty, $n:literal, $from:ident, $conv:ty) => {
        $(#[$m])*
        #[inline]
        pub fn $name(&mut self, what: &str) -> Result<$t> {
            let b: [u8; $n] = self.array(what)?;
            Ok(E::$from(b) as $conv as $t)
        }
    };
}

impl<'a, E: ByteOrder> Reader<'a, E> {
    fn new(data: &'a [u8], format: Format) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
            last_field: 0,
            format,
            limits: Limits::default(),
            order: PhantomData,
        }
    }

    /// Sets the limits counts are checked against.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The format being read (for error messages).
    pub fn format(&self) -> Format {
        self.format
    }

    /// Absolute byte offset of the cursor in the original input.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Offset of the cursor relative to the start of this reader's slice.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Length of this reader's slice.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when this reader's slice is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes left after the cursor.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when the cursor is at the end.
    pub fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }

    /// A `Malformed` error at an absolute offset.
    pub fn malformed_at(&self, offset: u64, what: impl Into<String>) -> Error {
        Error::Malformed {
            format: self.format,
            offset,
            what: what.into(),
        }
    }

    /// A `Malformed` error at the cursor.
    pub fn malformed(&self, what: impl Into<String>) -> Error {
        self.malformed_at(self.offset(), what)
    }

    /// An `Unsupported` error at an absolute offset.
    pub fn unsupported_at(&self, offset: u64, feature: impl Into<String>) -> Error {
        Error::Unsupported {
            format: self.format,
            offset,
            feature: feature.into(),
        }
    }

    /// Moves the cursor to `pos`, relative to the start of this reader's slice.
    pub fn seek(&mut self, pos: usize, what: &str) -> Result<()> {
        if pos > self.data.len() {
            return Err(self.malformed(format!(
                "{what}: offset {} is past the end of the data ({} bytes)",
                self.base + pos as u64,
                self.base + self.data.len() as u64
            )));
        }
        self.pos = pos;
        Ok(())
    }

    /// Takes the next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.short(n, what));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.last_field = self.offset();
        self.pos += n;
        Ok(s)
    }

    /// The error for a read of `n` bytes past the end; kept out of line so the read stays small.
    #[cold]
    #[inline(never)]
    fn short(&self, n: usize, what: &str) -> Error {
        self.malformed(format!(
            "expected {what} ({n} bytes), but only {} bytes are left",
            self.remaining()
        ))
    }

    /// The bytes after the cursor, without moving it (to look ahead before choosing a read).
    #[inline]
    pub fn ahead(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// Takes everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.data[self.pos..];
        self.pos = self.data.len();
        s
    }

    /// Skips `n` bytes.
    #[inline]
    pub fn skip(&mut self, n: usize, what: &str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Takes the next `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.bytes(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// The same reader with its offsets counted from `base`: for bytes cut out of a larger
    /// file, so errors name the file's offsets.
    pub fn with_base(mut self, base: u64) -> Self {
        self.last_field = self.last_field - self.base + base;
        self.base = base;
        self
    }

    /// A reader over the next `n` bytes (errors keep absolute offsets); the cursor moves past them.
    pub fn sub(&mut self, n: usize, what: &str) -> Result<Reader<'a, E>> {
        let base = self.offset();
        let data = self.bytes(n, what)?;
        Ok(Reader {
            data,
            pos: 0,
            base,
            last_field: base,
            format: self.format,
            limits: self.limits,
            order: PhantomData,
        })
    }

    /// Checks that `count` items of at least `min_item_size` bytes each can follow the cursor
    /// and are within the limits, and returns the count as `usize`. Call this right after reading
    /// the count and before allocating for it: an error points at the count field (the last
    /// field read).
    pub fn count(&self, count: u64, min_item_size: usize, what: &str) -> Result<usize> {
        let need = count.saturating_mul(min_item_size as u64);
        if need > self.remaining() as u64 {
            return Err(self.malformed_at(
                self.last_field,
                format!(
                    "{what}: a count of {count} needs at least {need} bytes, but only {} are left",
                    self.remaining()
                ),
            ));
        }
        self.limits.items(self.last_field, what, count)?;
        self.limits.bytes(self.last_field, what, need)?;
        Ok(count as usize)
    }

    read_int!(
        /// Reads a `u8`.
        u8, u8, 1, u8_first, u8
    );
    read_int!(
        /// Reads an `i8`.
        i8, i8, 1, u8_first, u8
    );
    read_int!(
        /// Reads a `u16`.
        u16, u16, 2, u16_from, u16
    );
    read_int!(
        /// Reads an `i16`.
        i16, i16, 2, u16_from, u16
    );
    read_int!(
        /// Reads a `u32`.
        u32, u32, 4, u32_from, u32
    );
    read_int!(
        /// Reads an `i32`.
        i32, i32, 4, u32_from, u32
    );
    read_int!(
        /// Reads a `u64`.
        u64, u64, 8, u64_from, u64
    );

    /// Reads an IEEE-754 `f32`.
    pub fn f32(&mut self, what: &str) -> Result<f32> {
        Ok(f32::from_bits(self.u32(what)?))
    }

    /// Reads an IEEE-754 `f64`.
    pub fn f64(&mut self, what: &str) -> Result<f64> {
        Ok(f64::from_bits(self.u64(what)?))
    }

    /// Reads a NUL-terminated string; the NUL is consumed but not returned.
    pub fn asciiz(&mut self, what: &str) -> Result<&'a [u8]> {
        let rest = &self.data[self.pos..];
        match nul_position(rest) {
            Some(n) => {
                self.last_field = self.offset();
                self.pos += n + 1;
                Ok(&rest[..n])
            }
            None => Err(self.malformed(format!(
                "expected {what} (a NUL-terminated string), but no NUL follows in the {} bytes left",
                rest.len()
            ))),
        }
    }

    /// Reads the `u32` at the cursor without moving it.
    pub fn peek_u32(&self) -> Option<u32> {
        let b = self.data.get(self.pos..self.pos + 4)?;
        Some(E::u32_from([b[0], b[1], b[2], b[3]]))
    }
}

/// Lets `read_int!` treat single bytes like the wider integers.
trait U8First {
    fn u8_first(b: [u8; 1]) -> u8;
}

impl<E: ByteOrder> U8First for E {
    fn u8_first(b: [u8; 1]) -> u8 {
        b[0]
    }
}

/// Index of the first NUL in `b`, eight bytes at a time (names are read by the thousand).
fn nul_position(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    for c in b.chunks_exact(8) {
        let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Non-zero exactly when some byte of `v` is zero.
        if v.wrapping_sub(LO) & !v & HI != 0 {
            break;
        }
        at += 8;
    }
    b[at..].iter().position(|&x| x == 0).map(|n| at + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_position_finds_the_first_nul_anywhere() {
        for len in 0..40 {
            for nul in 0..=len {
                // Bytes 0x01 and 0x80/0xFF around the NUL probe the word test's edge cases.
                let mut b: Vec<u8> = (0..len).map(|i| [1u8, 0x80, 0xFF, 0x7F][i % 4]).collect();
                let want = (nul < len).then(|| {
                    b[nul] = 0;
                    nul
                });
                if let Some(n) = want {
                    if n + 3 < len {
                        b[n + 3] = 0;
                    }
                }
                assert_eq!(nul_position(&b), want, "len {len} nul {nul}");
            }
        }
    }

    #[test]
    fn random_access_reads_and_patches_inside_the_bytes_only() {
        let mut b = [0x01, 0x02, 0x03, 0x04, 0x05];
        assert_eq!(Le::u16_at(&b, 3), Some(0x0504));
        assert_eq!(Be::u32_at(&b, 1), Some(0x0203_0405));
        assert_eq!(Le::u32_at(&b, 2), None, "one byte short");
        assert_eq!(Le::u32_at(&b, usize::MAX), None, "no overflow");
        assert_eq!(Le::put_u32(&mut b, 2, 0xAABB_CCDD), None);
        assert_eq!(
            b,
            [0x01, 0x02, 0x03, 0x04, 0x05],
            "nothing written past the end"
        );
        assert_eq!(Be::put_u16(&mut b, 0, 0xAABB), Some(()));
        assert_eq!(b[..2], [0xAA, 0xBB]);
        assert_eq!(Le::f32_at(&1.5f32.to_le_bytes(), 0), Some(1.5));
        assert_eq!(Be::u16s(&[1, 2, 3]).collect::<Vec<_>>(), [0x0102]);
        assert_eq!(Le::u32s(&[1, 0, 0, 0, 2]).collect::<Vec<_>>(), [1]);
        let long = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(Le::u64_at(&long, 1), Some(0x0908_0706_0504_0302));
        assert_eq!(Be::u64_at(&long, 2), None, "one byte short");
        assert_eq!(le_tag(b"MLOD"), 0x444F_4C4D, "'M' is the low byte");
    }

    #[test]
    fn reads_both_orders_and_reports_absolute_offsets() {
        let data = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06];
        let mut le = Reader::le(&data, Format::Tod);
        assert_eq!(le.u16("a").unwrap(), 0x0201);
        let mut sub = le.sub(2, "sub").unwrap();
        assert_eq!(sub.offset(), 2);
        assert_eq!(sub.u8("b").unwrap(), 3);
        let e = sub.u16("c").unwrap_err();
        assert_eq!(e.offset(), Some(3));
        let mut be = Reader::be(&data, Format::Mdd);
        assert_eq!(be.u32("d").unwrap(), 0x0102_0304);
        assert_eq!(be.i16("e").unwrap(), 0x0506);
    }

    #[test]
    fn count_is_checked_before_allocation() {
        let data = [0u8; 16];
        let r = Reader::le(&data, Format::Tod);
        assert_eq!(r.count(4, 4, "items").unwrap(), 4);
        let mut r2 = r.clone();
        r2.u32("pad").unwrap();
        r2.u32("count").unwrap();
        let e = r2.count(u32::MAX as u64, 8, "frames").unwrap_err();
        assert!(matches!(e, Error::Malformed { offset: 4, .. }), "{e}");
        let tight = r.clone().with_limits(Limits {
            max_items: 2,
            ..Limits::default()
        });
        assert!(matches!(
            tight.count(3, 1, "points"),
            Err(Error::LimitExceeded { requested: 3, .. })
        ));
    }

    #[test]
    fn writer_aligns_and_patches() {
        let mut w = Writer::be();
        let p = w.reserve_u32();
        w.u8(7);
        w.align(4, 0xAA);
        w.patch_u32(p, 0x1122_3344);
        assert_eq!(w.into_vec(), [0x11, 0x22, 0x33, 0x44, 7, 0xAA, 0xAA, 0xAA]);
    }
}
