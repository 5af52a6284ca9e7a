//! Raw 2352-byte sectors made whole again: EDC and the ECC P/Q parity of ECMA-130 Annex A.
//!
//! | sector | EDC over | EDC at | ECC over | P at | Q at |
//! |---|---|---|---|---|---|
//! | Mode 1 | bytes 0..2064 | 2064 (2068..2076 zero) | 12..2076 | 2076 (172 bytes) | 2248 (104 bytes) |
//! | Mode 2 Form 1 | 16..2072 (subheader + data) | 2072 | 12..2076, header taken as zero | 2076 | 2248 |
//! | Mode 2 Form 2 (submode bit 5) | 16..2348 | 2348 | none | | |
//!
//! The ECC is a Reed–Solomon product code over GF(2⁸) with the field polynomial
//! x⁸ + x⁴ + x³ + x² + 1 and α = x (ECMA-130 Annex A). The 2340 bytes from the header on are
//! 1170 words, each word's two bytes forming two separate planes. P: 43 columns of 26 words
//! (24 data rows, then the two parity rows at words 1032.. and 1075..), word `43·m + n`. Q: 26
//! diagonals of 45 words over the 1118 words of data and P parity, word `(44·m + 43·n) mod
//! 1118`, parity at words 1118.. and 1144... Each vector `v` satisfies
//! `Σ vᵢ = 0` and `Σ α^(N−1−i) vᵢ = 0` (the check matrix `H` of the annex), so with the data
//! sums `S0 = Σ vᵢ` and `S1 = Σ α^(N−1−i) vᵢ` the two parity bytes are
//! `p0 = (S0 + S1) / (α + 1)` and `p1 = S0 + p0`.

use crate::bytes::{ByteOrder, Le};
use crate::scan::raw::{edc, RAW_SECTOR, SYNC, USER_DATA};

/// Field polynomial x⁸ + x⁴ + x³ + x² + 1.
const POLY: u16 = 0x11D;

const fn tables() -> ([u8; 512], [u8; 256]) {
    let mut exp = [0u8; 512];
    let mut log = [0u8; 256];
    let mut x: u16 = 1;
    let mut i = 0;
    while i < 255 {
        exp[i] = x as u8;
        exp[i + 255] = x as u8;
        log[x as usize] = i as u8;
        x <<= 1;
        if x & 0x100 != 0 {
            x ^= POLY;
        }
        i += 1;
    }
    (exp, log)
}

static GF: ([u8; 512], [u8; 256]) = tables();

fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        0
    } else {
        GF.0[GF.1[a as usize] as usize + GF.1[b as usize] as usize]
    }
}

/// α^k.
fn alpha(k: usize) -> u8 {
    GF.0[k % 255]
}

/// 1 / (α + 1).
fn inv_alpha_plus_one() -> u8 {
    let l = GF.1[(alpha(1) ^ 1) as usize] as usize;
    GF.0[(255 - l) % 255]
}

/// Fills the two parity bytes of each vector: `words` gives vector `v`'s data word indices in
/// order (`n` of them, then parity at `p0(v)` and `p1(v)`), over the 2340 bytes from byte 12.
fn parity(
    s: &mut [u8],
    vectors: usize,
    n: usize,
    word: impl Fn(usize, usize) -> usize,
    p_at: impl Fn(usize) -> (usize, usize),
) {
    let total = n + 2;
    let inv = inv_alpha_plus_one();
    for plane in 0..2 {
        for v in 0..vectors {
            let (mut s0, mut s1) = (0u8, 0u8);
            for i in 0..n {
                let b = s[2 * word(v, i) + plane];
                s0 ^= b;
                s1 ^= mul(alpha(total - 1 - i), b);
            }
            let p0 = mul(s0 ^ s1, inv);
            let (a, b) = p_at(v);
            s[2 * a + plane] = p0;
            s[2 * b + plane] = s0 ^ p0;
        }
    }
}

/// Computes the P then Q parity of a Mode 1 or Mode 2 Form 1 sector (`s` from byte 12).
fn ecc(s: &mut [u8]) {
    parity(s, 43, 24, |v, i| 43 * i + v, |v| (1032 + v, 1075 + v));
    parity(
        s,
        26,
        43,
        |v, i| (44 * i + 43 * v) % 1118,
        |v| (1118 + v, 1144 + v),
    );
}

/// True when a Mode 2 sector's subheader marks Form 2.
pub fn is_form2(s: &[u8; RAW_SECTOR]) -> bool {
    s[18] & 0x20 != 0
}

/// Sets the EDC (and for Mode 1 and Mode 2 Form 1 the ECC) of a raw sector from its header,
/// subheader and user data; every other byte is kept.
pub fn seal(s: &mut [u8; RAW_SECTOR]) {
    match s[15] {
        1 => {
            let e = edc(&s[..2064]);
            Le::put_u32(s, 2064, e);
            s[2068..2076].fill(0);
            ecc(&mut s[12..]);
        }
        _ if is_form2(s) => {
            let e = edc(&s[16..2348]);
            Le::put_u32(s, 2348, e);
        }
        _ => {
            let e = edc(&s[16..2072]);
            Le::put_u32(s, 2072, e);
            let header = [s[12], s[13], s[14], s[15]];
            s[12..16].fill(0);
            ecc(&mut s[12..]);
            s[12..16].copy_from_slice(&header);
        }
    }
}

/// Where the 2048 user bytes of a Mode 1 or Mode 2 Form 1 sector start.
pub fn data_at(s: &[u8; RAW_SECTOR]) -> usize {
    if s[15] == 1 {
        16
    } else {
        24
    }
}

fn bcd(v: u64) -> u8 {
    (((v / 10) << 4) | (v % 10)) as u8
}

/// A new sector at logical block `lba` of a track starting at block `track_lba` on the disc
/// (the header counts from 00:02:00): Mode 1 when `subheader` is `None`, else Mode 2 Form 1
/// with that subheader (written twice), holding `data`, sealed.
pub fn new_sector(
    lba: u64,
    subheader: Option<[u8; 4]>,
    data: &[u8; USER_DATA],
) -> Box<[u8; RAW_SECTOR]> {
    let mut s = Box::new([0u8; RAW_SECTOR]);
    s[..12].copy_from_slice(&SYNC);
    let a = lba + 150;
    s[12] = bcd(a / (60 * 75));
    s[13] = bcd((a / 75) % 60);
    s[14] = bcd(a % 75);
    match subheader {
        None => {
            s[15] = 1;
            s[16..16 + USER_DATA].copy_from_slice(data);
        }
        Some(mut sub) => {
            s[15] = 2;
            sub[2] &= !0x20;
            s[16..20].copy_from_slice(&sub);
            s[20..24].copy_from_slice(&sub);
            s[24..24 + USER_DATA].copy_from_slice(data);
        }
    }
    seal(&mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check equations of Annex A evaluated directly (Horner over the vector).
    fn syndromes(s: &[u8], words: &[usize], plane: usize) -> (u8, u8) {
        let (mut s0, mut s1) = (0u8, 0u8);
        for &w in words {
            let b = s[2 * w + plane];
            s0 ^= b;
            s1 = mul(s1, alpha(1)) ^ b;
        }
        (s0, s1)
    }

    #[test]
    fn sealed_sectors_satisfy_the_check_equations() {
        for mode in [None, Some([1, 2, 0x08, 0])] {
            let mut data = [0u8; USER_DATA];
            for (i, b) in data.iter_mut().enumerate() {
                *b = (i * 7 + 3) as u8;
            }
            let s = new_sector(1234, mode, &data);
            let mut t = *s;
            if mode.is_some() {
                t[12..16].fill(0);
            }
            let b = &t[12..];
            for plane in 0..2 {
                for col in 0..43 {
                    let w: Vec<usize> = (0..26).map(|m| 43 * m + col).collect();
                    assert_eq!(syndromes(b, &w, plane), (0, 0), "P {col}");
                }
                for d in 0..26 {
                    let mut w: Vec<usize> = (0..43).map(|m| (44 * m + 43 * d) % 1118).collect();
                    w.extend([1118 + d, 1144 + d]);
                    assert_eq!(syndromes(b, &w, plane), (0, 0), "Q {d}");
                }
            }
            // Any flipped data byte breaks a check.
            let mut bad = t;
            bad[100] ^= 1;
            let w: Vec<usize> = (0..26).map(|m| 43 * m + (100 - 12) / 2 % 43).collect();
            assert_ne!(syndromes(&bad[12..], &w, 0), (0, 0));
        }
    }

    #[test]
    fn header_and_subheader() {
        let s = new_sector(0, Some([0, 0, 0x89, 0]), &[0; USER_DATA]);
        assert_eq!(&s[12..16], &[0, 2, 0, 2]);
        assert_eq!(&s[16..24], &[0, 0, 0x89, 0, 0, 0, 0x89, 0]);
        assert_eq!(data_at(&s), 24);
        let m1 = new_sector(4350, None, &[0; USER_DATA]);
        assert_eq!(&m1[12..16], &[1, 0, 0, 1]);
    }
}
