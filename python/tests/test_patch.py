"""``retroanim.patch`` checked from outside the library: raw CD images (Mode 1 and Mode 2 Form 1,
built here from an xorriso ISO with checksums this file computes) patched with a grown and a
shrunk TIM; every sector of the output is checked against ECMA-130 (EDC, and the P and Q parity
through the check matrix of Annex A), and ``scan`` finds the new assets. A PBO entry grows, and
the archive is read back here with its SHA-1 footer checked by ``hashlib``."""

from __future__ import annotations

import hashlib
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import retroanim

from conftest import REPO, corpus_files

# ECMA-130 Annex B: the EDC polynomial is (x^16 + x^15 + x^2 + 1)(x^16 + x^2 + x + 1), processed
# least significant bit first (the register is the reflected polynomial).


def _poly_mul(a: int, b: int) -> int:
    out = 0
    while b:
        if b & 1:
            out ^= a
        a <<= 1
        b >>= 1
    return out


_P = _poly_mul((1 << 16) | (1 << 15) | (1 << 2) | 1, (1 << 16) | (1 << 2) | (1 << 1) | 1)
_REFLECTED = int(f"{_P & 0xFFFFFFFF:032b}"[::-1], 2)  # x^32 implied; bit k of x^k reversed


def _crc_byte(c: int) -> int:
    for _ in range(8):
        c = (c >> 1) ^ (_REFLECTED if c & 1 else 0)
    return c


_CRC = [_crc_byte(i) for i in range(256)]


def edc(data: bytes) -> int:
    c = 0
    for b in data:
        c = _CRC[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


# GF(2^8) with x^8 + x^4 + x^3 + x^2 + 1 (Annex A), alpha = x.
_EXP = [0] * 510
_LOG = [0] * 256
_x = 1
for _i in range(255):
    _EXP[_i] = _EXP[_i + 255] = _x
    _LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D


def _mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


def _p_vectors():
    """Annex A: the 43 P vectors of 26 words (24 data rows, 2 parity rows)."""
    return [[43 * m + n for m in range(26)] for n in range(43)]


def _q_vectors():
    """Annex A: the 26 Q vectors of 45 words (43 along the diagonal, then the 2 parity words)."""
    return [[(44 * m + 43 * n) % 1118 for m in range(43)] + [1118 + n, 1144 + n] for n in range(26)]


def _syndromes(block: bytes, vector, plane: int):
    """H . v for H = [[1 ... 1], [a^(N-1) ... a 1]]: both zero for a codeword."""
    n = len(vector)
    s0 = s1 = 0
    for i, w in enumerate(vector):
        b = block[2 * w + plane]
        s0 ^= b
        s1 ^= _mul(_EXP[(n - 1 - i) % 255], b)
    return s0, s1


def ecc_ok(block: bytes) -> bool:
    """``block``: the 2340 bytes from the header on (header zeroed for Mode 2)."""
    return all(_syndromes(block, v, p) == (0, 0)
               for vs in (_p_vectors(), _q_vectors()) for v in vs for p in (0, 1))


def _fill_parity(block: bytearray):
    """Makes ``block`` a codeword: the parity of each vector from the two check equations."""
    inv = _EXP[(255 - _LOG[_EXP[1] ^ 1]) % 255]  # 1 / (a + 1)
    for vectors in (_p_vectors(), _q_vectors()):
        for v in vectors:
            for p in (0, 1):
                for w in v[-2:]:
                    block[2 * w + p] = 0
                s0, s1 = _syndromes(bytes(block), v, p)
                p0 = _mul(s0 ^ s1, inv)
                block[2 * v[-2] + p] = p0
                block[2 * v[-1] + p] = s0 ^ p0


SYNC = b"\x00" + b"\xff" * 10 + b"\x00"


def _bcd(v: int) -> int:
    return (v // 10) << 4 | v % 10


def _msf(lba: int) -> bytes:
    a = lba + 150
    return bytes([_bcd(a // 4500), _bcd(a // 75 % 60), _bcd(a % 75)])


def raw_sector(lba: int, mode: int, data: bytes) -> bytes:
    s = bytearray(2352)
    s[:12] = SYNC
    s[12:15] = _msf(lba)
    s[15] = mode
    if mode == 1:
        s[16:2064] = data
        s[2064:2068] = struct.pack("<I", edc(bytes(s[:2064])))
        block = bytearray(s[12:])
        _fill_parity(block)
        s[12:] = block
    else:
        s[16:24] = bytes([0, 0, 8, 0]) * 2
        s[24:2072] = data
        s[2072:2076] = struct.pack("<I", edc(bytes(s[16:2072])))
        block = bytearray(4) + s[16:]
        _fill_parity(block)
        s[16:] = block[4:]
    return bytes(s)


def check_sector(s: bytes, lba: int, mode: int):
    assert s[:12] == SYNC and s[12:15] == _msf(lba) and s[15] == mode, lba
    if mode == 1:
        assert struct.unpack("<I", s[2064:2068])[0] == edc(s[:2064]), f"EDC of sector {lba}"
        assert s[2068:2076] == bytes(8)
        assert ecc_ok(s[12:]), f"ECC of sector {lba}"
    else:
        assert s[16:20] == s[20:24], f"subheader copies of sector {lba}"
        assert not s[18] & 0x20, f"sector {lba} is Form 2"
        assert struct.unpack("<I", s[2072:2076])[0] == edc(s[16:2072]), f"EDC of sector {lba}"
        assert ecc_ok(bytes(4) + s[16:]), f"ECC of sector {lba}"


def test_the_checker_knows_a_broken_sector():
    s = bytearray(raw_sector(7, 2, bytes(range(256)) * 8))
    check_sector(bytes(s), 7, 2)
    s[1000] ^= 4
    assert not ecc_ok(bytes(4) + bytes(s[16:]))


def _whole_tims():
    out = []
    for _, path in corpus_files("TIM"):
        d = path.read_bytes()
        if len(d) < 12 or d[:4] != b"\x10\0\0\0":
            continue
        size = 8
        if struct.unpack("<I", d[4:8])[0] & 8:
            size += struct.unpack("<I", d[8:12])[0]
        if size + 4 > len(d):
            continue
        size += struct.unpack("<I", d[size:size + 4])[0]
        if size == len(d):
            out.append(d)
    return out


def _iso(tmp_path: Path):
    if shutil.which("xorriso") is None:
        pytest.skip("xorriso is not installed (scripts/test installs it)")
    tims = _whole_tims()
    small = next(t for t in tims if 400 <= len(t) <= 2100)
    large = next(t for t in tims if 6000 <= len(t) <= 40000)
    tree = tmp_path / "tree"
    (tree / "TIM").mkdir(parents=True)
    (tree / "TIM" / "S.TIM").write_bytes(small)
    (tree / "TIM" / "L.TIM").write_bytes(large)
    (tree / "PACK.BIN").write_bytes(bytes(333) + small + bytes(1000))
    iso = tmp_path / "disc.iso"
    subprocess.run(["xorriso", "-as", "mkisofs", "-quiet", "-no-pad", "-o", str(iso), str(tree)],
                   check=True, capture_output=True)
    return iso.read_bytes(), small, large


@pytest.mark.parametrize("mode", [1, 2])
def test_every_sector_of_a_patched_raw_image_is_whole(tmp_path, mode):
    iso, small, large = _iso(tmp_path)
    blocks = [iso[i:i + 2048].ljust(2048, b"\0") for i in range(0, len(iso), 2048)]
    image = tmp_path / f"mode{mode}.bin"
    image.write_bytes(b"".join(raw_sector(i, mode, b) for i, b in enumerate(blocks)))
    out = tmp_path / f"out{mode}.bin"
    repainted = small[:-16] + bytes(b ^ 0xFF for b in small[-16:])
    done = retroanim.patch(image, [("/TIM/S.TIM+0", large), ("/TIM/L.TIM+0", small),
                                   ("/PACK.BIN+333", repainted)], out)
    assert done["grown"] > 0 and done["written"] == [str(out)]
    assert len(done["notes"]) == 1 and "padded" in done["notes"][0]
    before, after = image.read_bytes(), out.read_bytes()
    assert len(after) == len(before) + done["grown"] and len(after) % 2352 == 0
    changed = 0
    for i in range(len(after) // 2352):
        s = after[i * 2352:(i + 1) * 2352]
        check_sector(s, i, mode)
        changed += s != before[i * 2352:(i + 1) * 2352]
    assert changed > 0
    finds = {(f.container.split(":", 1)[1], f.offset): f for f in retroanim.scan(out, align=1).finds}
    assert finds[("/TIM/S.TIM", 0)].data() == large
    assert finds[("/TIM/L.TIM", 0)].data() == small
    assert finds[("/PACK.BIN", 333)].data() == repainted
    with pytest.raises(retroanim.RetroanimError, match="bytes are missing"):
        retroanim.patch(image, [("/PACK.BIN+333", large)], tmp_path / "no.bin")
    assert not (tmp_path / "no.bin").exists()


def _pbo(entries, sha=True) -> bytes:
    def entry(name: bytes, method: int, size: int) -> bytes:
        return name + b"\0" + struct.pack("<5I", method, 0, 0, 0, size)

    head = entry(b"", 0x56657273, 0) + b"prefix\0test\0\0"
    for name, data in entries:
        head += entry(name, 0, len(data))
    head += entry(b"", 0, 0)
    body = head + b"".join(d for _, d in entries)
    return body + b"\0" + hashlib.sha1(body).digest() if sha else body


def _read_pbo(data: bytes):
    at, entries, first = 0, [], True
    while True:
        end = data.index(b"\0", at)
        name = data[at:end]
        method, _, _, _, size = struct.unpack("<5I", data[end + 1:end + 21])
        at = end + 21
        if not name and first and method == 0x56657273:
            while data[at] != 0:
                at = data.index(b"\0", data.index(b"\0", at) + 1) + 1
            at += 1
        elif not name:
            break
        else:
            entries.append((name, size))
        first = False
    out = []
    for name, size in entries:
        out.append((name, data[at:at + size]))
        at += size
    return out, data[at:]


def test_a_pbo_entry_grows_and_its_checksum_follows(tmp_path):
    model = (REPO / "samples" / "flag.p3d").read_bytes()
    entries = [(b"data\\a.p3d", model), (b"data\\b.txt", b"hello" * 50), (b"c.bin", bytes(range(256)))]
    src = tmp_path / "a.pbo"
    src.write_bytes(_pbo(entries))
    grown = model + model[-64:]
    out = tmp_path / "b.pbo"
    # Bytes that are not a P3D are refused unless forced; the forced copy is read back whole.
    with pytest.raises(retroanim.RetroanimError, match="--force"):
        retroanim.patch(src, [("/data/a.p3d+0", b"MLOD" + bytes(40))], out)
    assert not out.exists()
    done = retroanim.patch(src, [("/data/a.p3d+0", grown)], out, force=True)
    assert done["changes"][0]["new_size"] == len(grown)
    data = out.read_bytes()
    got, footer = _read_pbo(data)
    assert got == [(b"data\\a.p3d", grown)] + entries[1:]
    assert footer == b"\0" + hashlib.sha1(data[:-21]).digest()
