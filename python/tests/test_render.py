"""retroanim.render: a model, an animation and a texture drawn to PNG files (read back by the
PNG signature and the APNG frame count), and an option the input does not use refused."""

from pathlib import Path

import pytest

import retroanim

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _frames(data: bytes) -> int:
    # acTL's first field is the frame count; a plain PNG has no acTL.
    at = data.find(b"acTL")
    return 1 if at < 0 else int.from_bytes(data[at + 4:at + 8], "big")


def test_render_model_animation_texture(tmp_path):
    r = retroanim.render(SAMPLES / "link.tmd", tmp_path / "m.png", size=(64, 32))
    assert r.path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert r.frames == 1
    a = retroanim.render(SAMPLES / "swing.tod", tmp_path / "a.png",
                         tmd=SAMPLES / "link.tmd", frames=(0, 4), size=(32, 32))
    assert a.frames >= 2 and _frames(a.path.read_bytes()) == a.frames
    t = retroanim.render(SAMPLES / "checker.tim", tmp_path / "t.png")
    assert t.frames == 1 and t.path.exists()


def test_render_refuses_options_that_do_not_apply(tmp_path):
    with pytest.raises(retroanim.OptionError):
        retroanim.render(SAMPLES / "checker.tim", tmp_path / "t.png", yaw=10)
    assert not (tmp_path / "t.png").exists()
