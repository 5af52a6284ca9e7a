"""``retroanim.scan(..., report=DIR)``: the same report as ``retroanim scan --report DIR`` (the
same ``index.json`` but for the generator line), one asset per find, every linked file there,
and each extracted file the bytes of its find."""

from __future__ import annotations

import json

import retroanim

from conftest import corpus_files


def _folder(tmp_path):
    """A folder of a few corpus TIMs, TMDs, TODs and HMDs."""
    src = tmp_path / "in"
    src.mkdir()
    for kind in ("TIM", "TMD", "TOD", "HMD"):
        for i, (_, path) in enumerate(corpus_files(kind)[:2]):
            (src / f"{kind}{i}.{kind}").write_bytes(path.read_bytes())
    return src


def test_scan_report_equals_the_cli_and_links_the_finds_bytes(cli, tmp_path):
    src = _folder(tmp_path)
    out = tmp_path / "py"
    report = retroanim.scan(src, report=out)
    info = report.summary["report"]
    assert info["index"] == str(out / "index.html")
    assert (out / "index.html").is_file()
    index = json.loads((out / "index.json").read_text())
    assert info["assets"] == len(index["assets"]) == len(report.finds) > 0

    cli.run("scan", src, "--report", tmp_path / "cli")
    from_cli = json.loads((tmp_path / "cli" / "index.json").read_text())
    assert from_cli == index

    for find, asset in zip(report.finds, index["assets"]):
        assert (asset["source"]["container"], asset["source"]["offset"]) == (
            find.container, find.offset)
        assert (out / asset["file"]).read_bytes() == find.data()
        for key in ("preview", "glb", "png"):
            if asset[key] is not None:
                assert (out / asset[key]).is_file(), asset[key]


def test_a_report_that_cannot_be_written_raises(tmp_path):
    src = _folder(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    try:
        retroanim.scan(src, report=blocker / "report")
    except retroanim.RetroanimError as e:
        assert "report" in str(e) or "I/O" in str(e), e
    else:
        raise AssertionError("a report under a file was written")
