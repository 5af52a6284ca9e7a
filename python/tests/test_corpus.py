"""The Python package over the corpus, checked against the command line built from the same
library: summaries, validation, round trips, playback and conversions must agree exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import retroanim
from conftest import corpus_files, play_object, split_lines

#: Manifest kinds retroanim reads, and the format each is.
KINDS = {
    "TOD": "tod",
    "HMD": "hmd",
    "TMD": "tmd",
    "TIM": "tim",
    "p3d-mlod": "p3d",
    "p3d-odol": "p3d",
    "mdd": "mdd",
    "PMD": "pmd",
    "RTM": "rtm",
}

#: Manifest kinds without a magic number: read when named (``from_``), as ``--from`` does.
NAMED = {"CLT": "clt", "VDF": "vdf", "NDF": "ndf"}


def readable(kind):
    """Corpus files of ``kind`` with their bytes; files the library refuses are returned apart
    (the CLI must refuse them too: see ``test_read_errors_match_the_cli``)."""
    good, bad = [], []
    for name, path in corpus_files(kind):
        data = path.read_bytes()
        try:
            good.append((name, path, data, retroanim.read(data)))
        except retroanim.RetroanimError as e:
            bad.append((name, path, e))
    return good, bad


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_read_summary_equals_info_json(kind, cli):
    good, _ = readable(kind)
    assert good, f"no {kind} file of the corpus reads"
    paths = [p for _, p, _, _ in good]
    # `info --json`: one line per file (path first), then the summary.
    for chunk in range(0, len(paths), 100):
        part = good[chunk:chunk + 100]
        infos, summary = cli.lines("info", "--json", *[p for _, p, _, _ in part])
        assert len(infos) == len(part) == summary["items"]
        for (name, path, data, model), info in zip(part, infos):
            assert info.pop("path") == str(path)
            assert model.format == KINDS[kind], name
            assert model.summary() == info, name
            assert model.summary()["bytes"] == len(data)
            assert model.summary()["findings"] == [f.to_dict() for f in model.validate()]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_read_errors_match_the_cli(kind, cli):
    _, bad = readable(kind)
    for name, path, err in bad:
        p = cli.run("info", path, check=False)
        assert p.returncode == 2, name
        # The CLI prints the library error after the path; the exception's text is that error.
        assert str(err) in p.stderr.decode(), (name, str(err), p.stderr.decode())
        assert err.message and str(err).endswith(err.message)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_validate_equals_the_cli(kind, cli):
    good, _ = readable(kind)
    for chunk in range(0, len(good), 100):
        part = good[chunk:chunk + 100]
        p = cli.run("validate", "--json", *[p for _, p, _, _ in part], check=False)
        assert p.returncode in (0, 1), p.stderr
        reports, summary = split_lines(p.stdout)
        assert len(reports) == len(part) == summary["items"]
        for (name, path, _, model), report in zip(part, reports):
            assert report["path"] == str(path)
            found = [
                {"severity": f.severity, "offset": f.offset, "code": f.code, "message": f.message}
                for f in model.validate()
            ]
            assert found == report["findings"], name
            assert report["errors"] == sum(f.severity == "error" for f in model.validate())


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_round_trip_byte_exact_and_through_json(kind):
    good, _ = readable(kind)
    for name, _, data, model in good:
        assert model.write() == data, name
    # The JSON dump reads back into the same model (a sample: dumps of big files are slow).
    for name, _, data, model in good[:10]:
        again = retroanim.read(model.to_json().encode())
        assert again.format == model.format
        assert again.write() == data, name


def _cli_world(frames, nodes_key, id_key):
    """(frame, node id) -> (m, t) from `play --json` frames."""
    return {
        (f["frame"], n[id_key]): (n["world"]["m"], n["world"]["t"])
        for f in frames
        for n in f[nodes_key]
    }


def _check_playback(pb, cli_frames, nodes_key, id_key, name):
    assert list(pb.frames) == [f["frame"] for f in cli_frames], name
    expected = _cli_world(cli_frames, nodes_key, id_key)
    seen = 0
    for fi, frame in enumerate(pb.frames):
        for ni, node in enumerate(pb.ids):
            key = (int(frame), node)
            if key not in expected:
                assert not pb.present[fi, ni], (name, key)
                assert np.isnan(pb.world[fi, ni]).all()
                continue
            m, t = expected[key]
            seen += 1
            assert pb.present[fi, ni]
            assert pb.rotation[fi, ni].tolist() == m, (name, key)
            assert pb.translation[fi, ni].tolist() == t, (name, key)
            # The float matrix is the same numbers, fixed point undone.
            assert np.array_equal(pb.world[fi, ni, :3, :3] * 4096, np.array(m)), (name, key)
            assert np.array_equal(pb.world[fi, ni, :3, 3], np.array(t)), (name, key)
            assert pb.world[fi, ni, 3].tolist() == [0, 0, 0, 1]
    assert seen == len(expected), name


def test_tod_play_equals_cli_json(cli):
    good, _ = readable("TOD")
    # Every file over its first 60 frames; a few to their end (the default range).
    for i, (name, path, _, model) in enumerate(good):
        whole = i % 10 == 0
        args = [] if whole else ["--frames", "0..=59"]
        p = cli.run("play", "--json", path, *args, check=False)
        if p.returncode != 0:
            # Past the playback limit the CLI refuses; so must the package.
            with pytest.raises(retroanim.RetroanimError):
                retroanim.play(model)
            continue
        out = play_object(*split_lines(p.stdout))
        pb = retroanim.play(model, frames=None if whole else (0, 59))
        assert pb.notes == out["notes"], name
        assert pb.seconds_per_frame == out["seconds_per_frame"]
        _check_playback(pb, out["frames"], "objects", "id", name)


def test_tod_play_with_a_range_and_after(cli):
    good, _ = readable("TOD")
    janken = {Path(n).name: (p, m) for n, p, _, m in good if "/JANKEN/" in n}
    first, then = janken["APPEAR.TOD"], janken["JAANKEN.TOD"]
    out = cli.json("play", "--json", then[0], "--after", first[0], "--frames", "2..=9")
    pb = retroanim.play(then[1], after=[first[0]], frames=(2, 9))
    assert len(pb.frames) == 8
    _check_playback(pb, out["frames"], "objects", "id", "JAANKEN after APPEAR")
    one = retroanim.play(then[1], frames=5)
    assert list(one.frames) == [5]


def test_hmd_play_equals_cli_json(cli):
    good, _ = readable("HMD")
    # Every file over frames 0..29; a few with the CLI's default range (until the sequences
    # stop, at most 600 frames); one with a sequence and stream ID chosen.
    for i, (name, path, _, model) in enumerate(good):
        whole = i % 15 == 0
        args = [] if whole else ["--frames", "0..=29"]
        p = cli.run("play", "--json", path, *args, check=False)
        if p.returncode != 0:
            with pytest.raises(retroanim.RetroanimError):
                retroanim.play(model, frames=None if whole else (0, 29))
            continue
        out = play_object(*split_lines(p.stdout))
        pb = retroanim.play(model, frames=None if whole else (0, 29))
        assert pb.raw == out["frames"], name
        _check_playback(pb, out["frames"], "coordinates", "index", name)
    name, path, _, model = next(g for g in good if g[0].endswith("ANIM/INTERP/INTERP.HMD"))
    out = cli.json("play", "--json", path, "--frames", "10..=20", "--sequence", "0",
                   "--stream-id", "0", "--speed", "2")
    pb = retroanim.play(model, frames=(10, 20), sequence=0, stream_id=0, speed=2.0)
    _check_playback(pb, out["frames"], "coordinates", "index", name)
    # A sequence the file does not have is refused by both, naming what exists.
    p = cli.run("play", "--json", path, "--sequence", "1", check=False)
    assert p.returncode == 2 and b"sequences 0..=0" in p.stderr, p.stderr
    with pytest.raises(retroanim.RetroanimError) as e:
        retroanim.play(model, sequence=1)
    assert "sequences 0..=0" in str(e.value)


def _has_frames(model):
    return any(lod["frames"] for lod in model.summary().get("lods", []))


def _conversions():
    """(kind, target, extra CLI args, python options) cases, every source format × its targets."""
    return [
        ("TOD", "glb", [], {}),
        ("TOD", "gltf", ["--smooth"], {"smooth": True}),
        ("HMD", "glb", [], {}),
        ("HMD", "glb", ["--sequence", "0"], {"sequence": 0}),
        ("TMD", "glb", ["--axes", "raw"], {"axes": "raw"}),
        ("TMD", "gltf", ["--scale", "0.01"], {"scale": 0.01}),
        ("TIM", "png", [], {}),
        ("TIM", "png", ["--semi-transparent"], {"semi_transparent": True}),
        ("p3d-mlod", "mdd", [], {}),
        ("p3d-mlod", "pc2", ["--fps", "25"], {"fps": 25.0}),
        ("p3d-mlod", "glb", [], {}),
        ("p3d-odol", "glb", [], {}),
        ("mdd", "pc2", [], {}),
        ("mdd", "glb", [], {}),
        ("TOD", "json", [], {}),
    ]


@pytest.mark.parametrize("kind,target,args,opts", _conversions())
def test_convert_bytes_equal_the_cli(kind, target, args, opts, cli, tmp_path):
    good, _ = readable(kind)
    if kind == "p3d-mlod" and target in ("mdd", "pc2"):
        # Only MLODs with LOD frames have a point cache to give.
        good = [g for g in good if _has_frames(g[3])]
    converted = 0
    for name, path, _, model in good[:12]:
        out = tmp_path / f"cli.{target}"
        p = cli.run("convert", path, out, "--to", target, "--force", *args, check=False)
        if p.returncode != 0:
            with pytest.raises(retroanim.RetroanimError) as e:
                retroanim.convert(path, target, **opts)
            assert str(e.value) in p.stderr.decode(), (name, str(e.value), p.stderr.decode())
            continue
        mine = tmp_path / f"py.{target}"
        # The same name for each file: the previous file's output is replaced (force, as --force).
        result = retroanim.convert(path, target, mine, force=True, **opts)
        assert result.format == target
        assert result.path == mine
        assert mine.read_bytes() == result.data
        assert result.data == out.read_bytes(), name
        # The CLI prints each note as a `note:` line.
        for n in result.notes:
            assert n.message in p.stderr.decode(), name
        converted += 1
    assert converted, f"no {kind} file converted to {target}"


def test_point_cache_into_a_base_p3d_equals_the_cli(cli, tmp_path):
    # An MLOD with LOD frames, its frames out as MDD, back in through --base.
    good, _ = readable("p3d-mlod")
    done = 0
    for name, path, _, model in good:
        if not _has_frames(model) or done >= 3:
            continue
        try:
            cache = retroanim.convert(model, "pc2")
        except retroanim.RetroanimError:
            continue
        pc2 = tmp_path / "frames.pc2"
        pc2.write_bytes(cache.data)
        out = tmp_path / "cli.p3d"
        p = cli.run("convert", pc2, out, "--base", path, "--force", check=False)
        if p.returncode != 0:
            with pytest.raises(retroanim.RetroanimError):
                retroanim.convert(pc2, "p3d", base=path)
            continue
        mine = retroanim.convert(pc2, "p3d", base=path)
        assert mine.data == out.read_bytes(), name
        done += 1
    assert done, "no corpus MLOD took its own frames back"


def _corpus(kind, suffix):
    return next(p for n, p in corpus_files(kind) if n.endswith(suffix))


@pytest.mark.parametrize("source,target,cli_args,opts", [
    # A TOD driving its TMD, after the animation that creates its objects.
    ("TOD:TOD/JANKEN/TOD/JAANKEN.TOD", "glb",
     ["--tmd", "TMD:TOD/JANKEN/TMD/TE.TMD", "--after", "TOD:TOD/JANKEN/TOD/APPEAR.TOD"],
     {"tmd": "TMD:TOD/JANKEN/TMD/TE.TMD", "after": ["TOD:TOD/JANKEN/TOD/APPEAR.TOD"]}),
    # A textured TMD with its TIM.
    ("TMD:addons/graphics/TMD/EARTH.TMD", "glb", ["--tim", "TIM:addons/graphics/TMD/EARTH4.TIM"],
     {"tim": ["TIM:addons/graphics/TMD/EARTH4.TIM"]}),
])
def test_convert_with_files_as_options_equals_the_cli(source, target, cli_args, opts, cli, tmp_path):
    def path(ref):
        kind, suffix = ref.split(":", 1)
        return _corpus(kind, suffix)

    args = [path(a) if ":" in str(a) else a for a in cli_args]
    resolved = {k: ([path(x) for x in v] if isinstance(v, list) else path(v)) for k, v in opts.items()}
    out = tmp_path / f"cli.{target}"
    cli.run("convert", path(source), out, *args)
    mine = retroanim.convert(path(source), target, **resolved)
    assert mine.data == out.read_bytes()
    # The same options given as models read beforehand give the same bytes.
    as_models = {k: ([retroanim.read(x) for x in v] if isinstance(v, list) else retroanim.read(v))
                 for k, v in resolved.items()}
    assert retroanim.convert(retroanim.read(path(source)), target, **as_models).data == mine.data


@pytest.mark.parametrize("kind", sorted(NAMED))
def test_files_read_by_name_equal_the_cli(kind, cli):
    files = corpus_files(kind)
    assert files, f"no {kind} file in the corpus"
    for name, path in files:
        data = path.read_bytes()
        model = retroanim.read(data, from_=NAMED[kind])
        assert model.format == NAMED[kind], name
        assert model.write() == data, name
        infos, _ = cli.lines("info", "--json", "--from", NAMED[kind], path)
        info = infos[0]
        assert info.pop("path") == str(path)
        assert model.summary() == info, name


@pytest.mark.parametrize("kind", sorted(NAMED))
def test_files_without_magic_read_by_their_suffix(kind):
    for name, path in corpus_files(kind):
        assert retroanim.read(path).format == NAMED[kind], name

