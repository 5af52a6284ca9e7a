"""Shared fixtures: the corpus (as the Rust tests find it) and the `retroanim` CLI to compare with.

The corpus folder is ``$RETROANIM_CORPUS``, else ``../shared/corpus`` beside the repository.
Without it the corpus tests are skipped loudly, unless ``RETROANIM_REQUIRE_CORPUS=1``, which
makes them fail. The CLI is ``$RETROANIM_CLI``, else ``target/debug/retroanim`` (built with
``cargo build -p retroanim-cli`` when missing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]


def require_corpus() -> bool:
    return os.environ.get("RETROANIM_REQUIRE_CORPUS") == "1"


def corpus_dir() -> Path:
    return Path(os.environ.get("RETROANIM_CORPUS", REPO.parent / "shared" / "corpus"))


def corpus_files(kind: str) -> List[Tuple[str, Path]]:
    """Every corpus file of a manifest ``kind`` as (manifest path, full path), sorted."""
    manifest = corpus_dir() / "MANIFEST.tsv"
    try:
        text = manifest.read_text()
    except OSError as e:
        if require_corpus():
            raise AssertionError(
                f"RETROANIM_REQUIRE_CORPUS=1 but the corpus manifest {manifest} cannot be read: {e}"
            )
        msg = f"*** SKIPPING corpus test for {kind}: {manifest} not found ({e}). Set RETROANIM_CORPUS. ***"
        print(f"\n{msg}\n", file=sys.stderr)
        warnings.warn(msg)
        pytest.skip(msg)
    out = []
    for line in text.splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) >= 2 and cols[1] == kind:
            out.append((cols[0], corpus_dir() / cols[0]))
    assert out, f"the corpus manifest lists no files of kind {kind}"
    return sorted(out)


def corpus_file(kind: str, suffix: str) -> Path:
    """The first corpus file of a manifest ``kind`` whose manifest path ends in ``suffix``."""
    for name, path in corpus_files(kind):
        if name.endswith(suffix):
            return path
    raise AssertionError(f"the corpus has no {kind} ending in {suffix}")


def require_blender(what: str) -> None:
    """Skips the calling test loudly when this Python cannot import ``bpy`` (fails it instead
    with RETROANIM_REQUIRE_CORPUS=1); ``what`` names the test in the message."""
    if subprocess.run([sys.executable, "-c", "import bpy"], capture_output=True).returncode == 0:
        return
    why = f"{sys.executable} cannot import bpy (pip install -r tests/blender/requirements.txt)"
    if require_corpus():
        pytest.fail(f"RETROANIM_REQUIRE_CORPUS=1 but Blender cannot run: {why}")
    print(f"\n*** SKIPPING {what}: {why} ***\n", file=sys.stderr)
    pytest.skip(why)


def cli_path() -> Path:
    env = os.environ.get("RETROANIM_CLI")
    if env:
        return Path(env)
    path = REPO / "target" / "debug" / "retroanim"
    if not path.exists():
        subprocess.run(["cargo", "build", "-q", "-p", "retroanim-cli"], cwd=REPO, check=True)
    return path


class Cli:
    """Runs the ``retroanim`` command line."""

    def __init__(self, path: Path):
        self.path = path

    def run(self, *args, check: bool = True) -> subprocess.CompletedProcess:
        p = subprocess.run([str(self.path), *map(str, args)], capture_output=True)
        if check and p.returncode != 0:
            raise AssertionError(
                f"retroanim {' '.join(map(str, args))} exited {p.returncode}: {p.stderr.decode()}"
            )
        return p

    def lines(self, *args, check: bool = True):
        """``--json`` output (JSON Lines): the item lines and the summary (the last line's)."""
        return split_lines(self.run(*args, check=check).stdout)

    def json(self, *args):
        """``--json`` output of one input: its one item line; ``play``'s as one dict (see
        :func:`play_object`)."""
        items, summary = self.lines(*args)
        if summary["command"] == "play":
            return play_object(items, summary)
        assert len(items) == 1, items
        return items[0]


def split_lines(stdout: bytes):
    """JSON Lines output as (item lines, summary)."""
    lines = [json.loads(l) for l in stdout.splitlines() if l.strip()]
    return lines[:-1], lines[-1]["summary"]


def play_object(items, summary):
    """``play --json`` as one dict: the summary's fields (``notes``, ``seconds_per_frame``, ...)
    and ``frames``, each frame line less the fields every line has (``path``, ``format``,
    ``ok``, ``findings``), as the package's ``Playback.raw`` holds them."""
    frames = [{k: v for k, v in f.items() if k not in ("path", "format", "ok", "findings")}
              for f in items]
    return dict(summary, frames=frames)


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(cli_path())
