"""RSD sets through the Python package: read with their parts, written back identical,
converted to TMD."""

from pathlib import Path

import pytest

import retroanim

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
CUBE = CORPUS / "ps1/plekakis+psxdev/psyq/psx/data/HMD/SCEI/ANIM/CUBE0/CUBE0.RSD"


def test_rsd_set_reads_writes_and_links():
    if not CUBE.is_file():
        pytest.skip("no corpus")
    s = retroanim.read_rsd(CUBE)
    summary = s.summary()
    assert summary["format"] == "rsd" and summary["ok"]
    assert summary["vertices"] == 8 and summary["quads"] + summary["triangles"] == 8
    for name, data in s.write():
        path = CUBE if name == "" else next(
            p for p in CUBE.parent.iterdir() if p.name.lower() == name.lower()
        )
        assert path.read_bytes() == data
    tmd, notes = s.convert("tmd")
    assert retroanim.read(tmd).format == "tmd"
    assert notes == []


def test_rsd_errors_name_the_line(tmp_path):
    (tmp_path / "a.rsd").write_text("@RSD970401\nPLY=a.ply\nMAT=a.mat\n")
    (tmp_path / "a.ply").write_text("@PLY970401\n1 0 0\n0 x 0\n")
    (tmp_path / "a.mat").write_text("@MAT970401\n0\n")
    with pytest.raises(retroanim.MalformedError) as e:
        retroanim.read_rsd(tmp_path / "a.rsd")
    assert "a.ply:3:3" in str(e.value)


def test_rsd_written_from_python_names_its_parts_after_the_output(tmp_path):
    if not CUBE.is_file():
        pytest.skip("no corpus")
    glb, _ = retroanim.read_rsd(CUBE).convert("glb")
    src = tmp_path / "scene.glb"
    src.write_bytes(glb)
    out = tmp_path / "back.rsd"
    conv = retroanim.convert(src, "rsd", out)
    assert "PLY=back.ply" in out.read_text()
    assert {e.path.name for e in conv.extra} >= {"back.ply", "back.mat"}
    again = retroanim.read_rsd(out).summary()
    want = retroanim.read_rsd(CUBE).summary()
    assert again["triangles"] + again["quads"] == want["triangles"] + want["quads"]
