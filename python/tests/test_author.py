"""Conversions from glTF: glTF → TOD writes the TMD model and its TIMs beside the TOD (atomically,
named as the CLI names them, with the CLI's bytes), or returns them without ``out``; glTF → P3D
puts a morph animation back into the base model's LOD frames."""

from __future__ import annotations

from pathlib import Path

import pytest

import retroanim

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _glb(tmp_path: Path) -> Path:
    glb = tmp_path / "swing.glb"
    retroanim.convert(SAMPLES / "swing.tod", "glb", glb, tmd=SAMPLES / "link.tmd")
    return glb


def test_gltf_to_tod_writes_its_model_beside_it_as_the_cli_does(tmp_path, cli):
    glb = _glb(tmp_path)
    got = retroanim.convert(glb, "tod")
    assert got.format == "tod" and got.path is None
    assert [e.suffix for e in got.extra][0] == ".tmd"
    assert all(e.path is None for e in got.extra)

    out = tmp_path / "py" / "anim.tod"
    out.parent.mkdir()
    done = retroanim.convert(glb, "tod", out)
    assert done.path == out and out.read_bytes() == done.data == got.data
    assert [e.data for e in done.extra] == [e.data for e in got.extra]
    for e in done.extra:
        assert e.path == out.with_name("anim" + e.suffix)
        assert e.path.read_bytes() == e.data
    assert retroanim.read(out.with_name("anim.tmd")).format == "tmd"
    # No temporary files are left behind.
    assert sorted(p.name for p in out.parent.iterdir()) == sorted(
        ["anim.tod"] + ["anim" + e.suffix for e in done.extra])

    by_cli = tmp_path / "cli" / "anim.tod"
    by_cli.parent.mkdir()
    cli.run("convert", glb, by_cli)
    assert sorted(p.name for p in by_cli.parent.iterdir()) == sorted(
        p.name for p in out.parent.iterdir())
    for p in out.parent.iterdir():
        assert (by_cli.parent / p.name).read_bytes() == p.read_bytes(), p.name

    # With a model given, there is nothing to write beside the TOD.
    assert retroanim.convert(glb, "tod", tmd=SAMPLES / "link.tmd").extra == []


def test_gltf_animation_choice_is_checked(tmp_path):
    glb = _glb(tmp_path)
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(glb, "tod", animation=3)
    assert "animation" in str(e.value)


def test_gltf_morph_animation_goes_back_into_a_p3d(tmp_path):
    flag = SAMPLES / "flag.p3d"
    glb = retroanim.convert(flag, "glb").data
    back = retroanim.convert(glb, "p3d", base=flag)
    assert back.data == flag.read_bytes() or retroanim.read(back.data).format == "p3d"
    with pytest.raises(retroanim.OptionError):
        retroanim.convert(glb, "p3d")
