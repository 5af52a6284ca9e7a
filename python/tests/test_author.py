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


def test_cli_options_reach_python_with_the_cli_bytes(tmp_path, cli):
    """``resolution`` (glTF → TOD) and ``bpp`` / ``vram`` / ``clut_at`` (PNG → TIM) give the
    bytes the CLI's ``--resolution`` / ``--bpp --vram --clut X,Y`` give; where they do not
    apply they are refused by name."""
    glb = _glb(tmp_path)
    by_cli = tmp_path / "r1.tod"
    cli.run("convert", glb, by_cli, "--resolution", "1", "--tmd", SAMPLES / "link.tmd")
    got = retroanim.convert(glb, "tod", resolution=1, tmd=SAMPLES / "link.tmd")
    assert got.data == by_cli.read_bytes()
    # Without the option the GLB's extras give the TOD back its own resolution (2, bytes 2..3
    # of the header); the option overrides them.
    default = retroanim.convert(glb, "tod", tmd=SAMPLES / "link.tmd").data
    assert default[2:4] == b"\x02\x00" and got.data[2:4] == b"\x01\x00"
    assert got.data != default

    png = tmp_path / "checker.png"
    retroanim.convert(SAMPLES / "checker.tim", "png", png)
    tim = tmp_path / "cli.tim"
    cli.run("convert", png, tim, "--bpp", "4", "--vram", "320,0", "--clut", "0,480")
    got = retroanim.convert(png, "tim", bpp=4, vram=(320, 0), clut_at=(0, 480))
    assert got.data == tim.read_bytes()
    summary = retroanim.read(got.data).summary()
    assert summary["image_rect"][:2] == [320, 0] and summary["clut_rect"][:2] == [0, 480]

    for name, kwargs in (("bpp", {"bpp": 4}), ("intr-idx", {"intr_idx": 0})):
        with pytest.raises(retroanim.OptionError) as e:
            retroanim.convert(glb, "tod", **kwargs)
        assert name in str(e.value)


def test_play_intr_idx_and_aframe_as_the_cli(cli):
    """``play(intr_idx=, aframe=)`` run an HMD as a program that sets INTR IDX or AFRAME does,
    as ``retroanim play --intr-idx / --aframe``; a TOD refuses them."""
    from conftest import corpus_files

    hmd = next((p for n, p in corpus_files("HMD") if n.endswith("TUTO/PYRAMID/PYRAMID5.HMD")), None)
    if hmd is None:
        pytest.skip("no corpus PYRAMID5.HMD")
    base = retroanim.play(hmd, frames=(0, 299))
    stopped = retroanim.play(hmd, frames=(0, 299), aframe=10)
    # After AFRAME updates the pointers stop: every later frame shows the same pose.
    assert (stopped.translation[12:] == stopped.translation[12]).all()
    assert not (base.translation[12:] == base.translation[12]).all()
    switched = retroanim.play(hmd, frames=(0, 299), intr_idx=0)
    assert (switched.translation != base.translation).any()
    by_cli = cli.json("play", hmd, "--frames", "0..=299", "--intr-idx", "0", "--json")
    assert len(by_cli["frames"]) == len(switched.frames)
    with pytest.raises(retroanim.OptionError):
        retroanim.play(SAMPLES / "swing.tod", intr_idx=0)
