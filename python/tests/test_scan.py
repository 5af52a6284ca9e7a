"""``retroanim.scan``: the same finds as ``retroanim scan --json``, on an ISO 9660 image the test
builds with ``xorriso`` from corpus files (plain files, and packed between filler in a blob), and the finds' bytes equal the files they came from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

import retroanim

from conftest import REPO, corpus_files


def _disc(tmp_path):
    if shutil.which("xorriso") is None:
        pytest.skip("xorriso is not installed (scripts/test installs it)")
    files = {}
    for kind in ("TOD", "TMD", "TIM", "HMD"):
        for name, path in corpus_files(kind)[:3]:
            files[f"{kind}{len(files):02d}.{kind}"] = path.read_bytes()
    tree = tmp_path / "tree" / "DATA"
    tree.mkdir(parents=True)
    for name, data in files.items():
        (tree / name).write_bytes(data)
    # A blob: the first three files packed between random bytes at word-aligned offsets that
    # are not sector-aligned (as the console's loaders need).
    rng = __import__("random").Random(7)
    blob = bytearray(rng.randbytes(1001))
    packed = []
    for name, data in list(files.items())[:3]:
        blob += rng.randbytes((-len(blob)) % 4)
        packed.append((len(blob), data))
        blob += data
        blob += rng.randbytes(997)
    (tree / "PACK.BIN").write_bytes(bytes(blob))
    iso = tmp_path / "disc.iso"
    subprocess.run(["xorriso", "-as", "mkisofs", "-quiet", "-V", "TEST", "-o", str(iso),
                    str(tmp_path / "tree")], check=True, capture_output=True)
    return iso, files, packed


def test_scan_equals_the_cli_and_gives_back_the_bytes(cli, tmp_path):
    iso, files, packed = _disc(tmp_path)
    report = retroanim.scan(iso)
    lines = [json.loads(l) for l in cli.run("scan", iso, "--json").stdout.splitlines()]
    cli_finds, cli_summary = lines[:-1], lines[-1]["summary"]
    assert [f.record() for f in report.finds] == cli_finds
    for key in ("finds", "formats", "bytes_scanned", "candidates", "rejected", "skipped"):
        assert report.summary[key] == cli_summary[key], key
    # Every plain file found once, whole, at offset 0 of its own container.
    by_container = {}
    for f in report.finds:
        by_container.setdefault(f.container, []).append(f)
    for name, data in files.items():
        found = by_container.get(f"{iso}:/DATA/{name}", [])
        assert [(f.offset, f.size) for f in found] == [(0, len(data))], name
        assert found[0].data() == data
        assert found[0].image_offset is not None and found[0].status in ("clean", "warnings")
        assert found[0].read().write() == data
    # The packed copies, at their unaligned offsets.
    in_blob = {f.offset: f for f in by_container.get(f"{iso}:/DATA/PACK.BIN", [])}
    for offset, data in packed:
        assert offset in in_blob, (offset, sorted(in_blob))
        assert in_blob[offset].data() == data


def test_scan_options_and_errors(tmp_path):
    iso, files, _ = _disc(tmp_path)
    only = retroanim.scan([iso], formats=["tim"])
    assert only.finds and {f.format for f in only.finds} == {"tim"}
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.scan(iso, formats=["mdd"])
    assert e.value.option == "formats"
    with pytest.raises(retroanim.OptionError):
        retroanim.scan(iso, align=0)
    # A container that lies is reported, not raised: an ISO whose root directory points past
    # the end of the image.
    data = bytearray(iso.read_bytes()[: 17 * 2048])
    pvd = 16 * 2048
    root = pvd + 156
    data[root + 2: root + 6] = (10**6).to_bytes(4, "little")
    data[root + 6: root + 10] = (10**6).to_bytes(4, "big")
    bad = tmp_path / "bad.iso"
    bad.write_bytes(bytes(data))
    report = retroanim.scan(bad)
    assert report.summary["errors"], report.summary
    assert report.summary["errors"][0]["offset"] is not None


def _savestate(tmd: bytes) -> bytes:
    """A gzip-compressed PCSX-ReARMed savestate (docs/scan-dumps.md, "Savestates") with ``tmd``
    at RAM offset 0x10000."""
    import gzip
    import struct

    ram = bytearray(2 << 20)
    ram[0x10000:0x10000 + len(tmd)] = tmd
    spu = 0x90000
    stream = b"".join([
        b"STv4 PCSXra r24".ljust(32, b"\0"),
        struct.pack("<IB", 0x8B410006, 0),  # SaveVersion, HLE flag
        bytes(128 * 96 * 3),  # thumbnail
        bytes(ram),
        bytes((512 << 10) + (64 << 10) + 792),  # BIOS, hardware and CPU registers
        struct.pack("<I", 1), bytes(1028 + (1 << 20)),  # GPU section, VRAM
        struct.pack("<I8sII", spu, b"PBOSP2", 5, spu), bytes(spu - 16),  # SPU section
    ])
    return gzip.compress(stream, compresslevel=1)


def test_scan_reads_a_savestate_as_the_cli_does(cli, tmp_path):
    tmd = (REPO / "samples" / "link.tmd").read_bytes()
    state = tmp_path / "game.ss0"
    state.write_bytes(_savestate(tmd))
    report = retroanim.scan(state)
    assert report.summary["errors"] == []
    [found] = [f for f in report.finds if f.format == "tmd"]
    assert (found.container, found.offset) == (f"{state}:/RAM", 0x10000)
    assert found.data() == tmd
    lines = [json.loads(l) for l in cli.run("scan", state, "--json").stdout.splitlines()]
    assert [f.record() for f in report.finds] == lines[:-1]
    # Cut short, it is an error naming the byte, not an exception.
    state.write_bytes(_savestate(tmd)[:2000])
    report = retroanim.scan(state)
    [error] = report.summary["errors"]
    assert error["error"].startswith("pcsx savestate: malformed at byte "), error
