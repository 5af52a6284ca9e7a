"""The package writes through the library's output rule (docs/safety.md), as the CLI does:
never over a device node, a FIFO, the input, a file an option names or, without ``force``, an
existing file (glTF → TOD's TMD beside the TOD too); all outputs are checked before the first
is written and no temporary file is left."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import retroanim

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _files(d: Path):
    return sorted((p.name, p.read_bytes()) for p in d.iterdir() if p.is_file())


def test_devices_and_fifos_are_never_replaced(tmp_path):
    with pytest.raises(retroanim.RetroanimError, match="a device"):
        retroanim.convert(SAMPLES / "checker.tim", "png", "/dev/null", force=True)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "f.png"
    os.mkfifo(fifo)
    with pytest.raises(retroanim.RetroanimError, match="FIFO"):
        retroanim.render(SAMPLES / "checker.tim", fifo, force=True)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["f.png"]


def test_an_unrelated_model_beside_the_tod_is_kept(tmp_path):
    glb = tmp_path / "swing.glb"
    retroanim.convert(SAMPLES / "swing.tod", "glb", glb, tmd=SAMPLES / "link.tmd")
    (tmp_path / "anim.tmd").write_bytes(b"the user's own model")
    before = _files(tmp_path)
    with pytest.raises(retroanim.RetroanimError, match="exists already"):
        retroanim.convert(glb, "tod", tmp_path / "anim.tod")
    # Nothing written: not even the TOD, whose own name was free.
    assert _files(tmp_path) == before
    done = retroanim.convert(glb, "tod", tmp_path / "anim.tod", force=True)
    assert (tmp_path / "anim.tmd").read_bytes() == done.extra[0].data


def test_the_input_and_option_files_are_never_replaced(tmp_path):
    tim = tmp_path / "a.tim"
    tim.write_bytes((SAMPLES / "checker.tim").read_bytes())
    before = _files(tmp_path)
    with pytest.raises(retroanim.RetroanimError, match="this run reads"):
        retroanim.convert(tim, "tim", tim)
    link = tmp_path / "link.tim"
    link.symlink_to(tim)
    with pytest.raises(retroanim.RetroanimError):
        retroanim.convert(tim, "tim", link)
    assert tim.read_bytes() == before[0][1] and link.is_symlink()
    # Named as the output with force: the user asked.
    retroanim.convert(tim, "tim", tim, force=True)
    # An existing output with the very bytes is left as it is, no force needed.
    out = tmp_path / "a.png"
    retroanim.convert(tim, "png", out)
    retroanim.convert(tim, "png", out)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".retroanim-")]
