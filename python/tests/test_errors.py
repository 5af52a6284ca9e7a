"""Exceptions: damaged files raise MalformedError with the CLI's format, offset and message;
options that do not apply raise OptionError naming them."""

from __future__ import annotations

import os

import pytest

import retroanim
from conftest import corpus_files


def _first(kind):
    name, path = corpus_files(kind)[0]
    return name, path.read_bytes()


@pytest.mark.parametrize("kind,fmt", [("TOD", "tod"), ("HMD", "hmd"), ("TMD", "tmd"),
                                      ("TIM", "tim"), ("p3d-mlod", "p3d")])
def test_truncated_files_raise_malformed_with_the_clis_text(kind, fmt, cli, tmp_path):
    name, data = _first(kind)
    raised = 0
    for cut in (len(data) // 3, len(data) // 2, len(data) - 1):
        damaged = data[:cut]
        try:
            retroanim.read(damaged, from_=fmt)
        except retroanim.MalformedError as e:
            raised += 1
            assert e.format == fmt
            assert 0 <= e.offset <= len(damaged)
            assert e.message and str(e) == f"{fmt}: malformed at byte {e.offset} (0x{e.offset:x}): {e.message}"
            f = tmp_path / "damaged.bin"
            f.write_bytes(damaged)
            p = cli.run("info", "--from", fmt, f, check=False)
            assert p.returncode == 2
            assert str(e) in p.stderr.decode()
        except retroanim.RetroanimError as e:  # pragma: no cover - reported below
            pytest.fail(f"{name} cut at {cut}: {type(e).__name__} instead of MalformedError: {e}")
    assert raised, f"{name}: no truncation of it was refused"


def test_unknown_content_raises_unknown_format():
    with pytest.raises(retroanim.UnknownFormatError) as e:
        retroanim.read(b"hello, world")
    assert e.value.format is None and e.value.offset is None
    assert isinstance(e.value, retroanim.RetroanimError)


def test_missing_path_raises_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        retroanim.read(tmp_path / "nothing.tod")


def test_inapplicable_option_is_refused_by_name():
    _, data = _first("TOD")
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(data, "glb", lod=1.0)
    assert e.value.option == "lod"
    assert "does not apply" in e.value.message
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(data, "glb", scale=-1.0)
    assert e.value.option == "scale"
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(data, "glb", axes="sideways")
    assert e.value.option == "axes"
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.play(data, sequence=1)
    assert e.value.option == "sequence"
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.read(data, from_="exe")
    assert e.value.option == "from"


def test_option_file_of_the_wrong_format_is_refused():
    _, tod = _first("TOD")
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(tod, "glb", tmd=tod)
    assert e.value.option == "tmd" and "needs a tmd" in e.value.message


def test_impossible_conversion_lists_nothing_silently():
    _, tim = _first("TIM")
    with pytest.raises(retroanim.ConversionError) as e:
        retroanim.convert(tim, "mdd")
    assert e.value.format == "tim" and e.value.target == "mdd"
    assert "png" in str(e.value)
    assert retroanim.targets("tim") == ["png", "json", "pxl", "clt"]


def test_out_never_replaces_the_input(tmp_path):
    _, tod = _first("TOD")
    f = tmp_path / "a.tod"
    f.write_bytes(tod)
    with pytest.raises(retroanim.OptionError):
        retroanim.convert(f, "tod", f)
    assert f.read_bytes() == tod
    # Nothing half-written is left beside it.
    assert [p.name for p in tmp_path.iterdir()] == ["a.tod"]


def test_written_files_get_the_users_umask(tmp_path):
    # As the CLI: a new file gets 0o666 less the umask (not mkstemp's owner-only 0o600); a
    # replaced file keeps its own mode.
    _, tod = _first("TOD")
    src = tmp_path / "a.tod"
    src.write_bytes(tod)
    old = os.umask(0o027)
    try:
        out = tmp_path / "a.json"
        retroanim.convert(src, "json", out)
        assert out.stat().st_mode & 0o777 == 0o640
        os.chmod(out, 0o664)
        retroanim.convert(src, "json", out)
        assert out.stat().st_mode & 0o777 == 0o664
    finally:
        os.umask(old)
