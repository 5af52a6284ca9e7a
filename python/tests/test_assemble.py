"""``retroanim.assemble``: on the corpus folders where Sony's samples keep TMDs with their TIMs,
every textured polygon is matched to a TIM and the TIM chosen is the file in that folder; the
PsyQ janken TODs pick their tree's ``TE.TMD`` with confidence; a TOD with no model beside it
gets no confident model, and what stays unmatched is a note with its count."""

from __future__ import annotations

import re
import shutil
from collections import defaultdict

import retroanim

from conftest import corpus_files


def _sample_folders():
    """The corpus folders holding both TMDs and TIMs."""
    kinds = defaultdict(set)
    for kind in ("TMD", "TIM"):
        for _, path in corpus_files(kind):
            kinds[path.parent].add(kind)
    return sorted(p for p, k in kinds.items() if k == {"TMD", "TIM"})


def _count(note):
    return int(re.match(r"(\d+) ", note.message).group(1))


def test_sample_folders_texture_their_models_from_the_tims_beside_them():
    folders = _sample_folders()
    assert folders
    textured = matched = full = 0
    for folder in folders:
        asm = retroanim.assemble(folder)
        tims = {a.source.container for a in asm.assets if a.format == "tim"}
        for a in asm.assets:
            assert a.source.container.startswith(str(folder))
            if a.format != "tmd" or a.textured == 0:
                continue
            textured += a.textured
            matched += a.textured - a.untextured
            full += a.untextured == 0
            assert sum(t.polygons for t in a.textures) == a.textured - a.untextured
            for t in a.textures:
                # The TIM chosen is a TIM of the folder, read back from its place, with its
                # confidence.
                assert t.source.container in tims
                assert 0.0 < t.confidence <= 1.0 and t.cover in ("covers", "overlaps")
                tim = asm.read(t)
                assert tim.format == "tim"
                with open(t.source.container, "rb") as f:
                    f.seek(t.source.offset)
                    assert tim.write() == f.read(t.source.size)
                for alt in t.alternatives:
                    assert alt.source.container in tims and alt.confidence <= 1.0
        untextured = textured - matched
        notes = [n for n in asm.notes if n.code == "untextured-polygons"]
        lacking = sum(a.untextured for a in asm.assets)
        # What stays unmatched is a note with its count (none when every polygon is matched).
        assert [_count(n) for n in notes] == ([lacking] if lacking else [])
    print(f"\nassemble: {len(folders)} sample folders, {matched} of {textured} textured "
          f"polygons matched, {full} models fully textured ({untextured} polygons unmatched "
          "in models some of whose images the corpus lacks)")
    assert matched > 0 and full > 0


#: Sony's sample folders that hold every image their models sample.
COMPLETE = ("MISC/60FRAME", "GRAPHICS/ODEN", "graphics/MIPMAP", "TMDVIEW/RCUBE", "cd/STR3D",
            "GRAPHICS/ZBUFF")


def test_every_textured_polygon_of_complete_sample_folders_is_matched():
    folders = [f for f in _sample_folders() if str(f).endswith(COMPLETE)]
    assert len(folders) >= len(COMPLETE)
    polygons = 0
    for folder in folders:
        asm = retroanim.assemble([folder])
        textured = [a for a in asm.assets if a.format == "tmd" and a.textured > 0]
        assert textured, folder
        for a in textured:
            assert a.untextured == 0, a
            assert a.textures and all(t.confidence >= 0.5 for t in a.textures), a
            polygons += a.textured
        assert not [n for n in asm.notes if n.code == "untextured-polygons"], asm.notes
        # The same model found by the path a user names; its TIMs read in the export's order.
        first = textured[0]
        assert asm.asset(first.source.container) == first
        assert [t.format for t in asm.tims_for(first)] == ["tim"] * len(first.textures)
    print(f"\nassemble: {polygons} textured polygons of {len(folders)} complete sample folders, "
          "all matched")


def test_janken_tods_pick_their_tmd():
    trees = sorted({p.parents[1] for n, p in corpus_files("TOD") if "/TOD/JANKEN/TOD/" in n})
    assert trees
    for tree in trees:
        asm = retroanim.assemble(tree)
        tods = [a for a in asm.assets if a.format == "tod"]
        assert tods
        for t in tods:
            assert t.model is not None, t
            assert t.model.source.container.endswith("TMD/TE.TMD"), t.model
            assert t.model.source.container.startswith(str(tree))
            assert 0.5 <= t.model.confidence <= 1.0
            assert all(c.confidence <= t.model.confidence for c in t.alternatives)
            assert asm.read(t.model).format == "tmd"
        assert not [n for n in asm.notes if n.code in ("no-model", "model-unsure")]


def test_a_lone_tod_gets_no_confident_model(tmp_path):
    name, tod = next((n, p) for n, p in corpus_files("TOD") if "/TOD/JANKEN/TOD/" in n)
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(tod, alone / tod.name)
    asm = retroanim.assemble([alone])
    [a] = asm.assets
    assert a.format == "tod" and a.model is None and a.alternatives == []
    [note] = asm.notes
    assert note.code == "no-model" and _count(note) == 1
    # Beside a TMD from another tree (copied far from it), it is at best a candidate shown.
    tmd = next(p for n, p in corpus_files("TMD") if n.endswith("JANKEN/TMD/TE.TMD"))
    far = tmp_path / "elsewhere" / "b" / "c" / "d" / "e"
    far.mkdir(parents=True)
    shutil.copy(tmd, far / "MODEL.TMD")
    asm = retroanim.assemble([alone, tmp_path / "elsewhere"])
    [a] = [x for x in asm.assets if x.format == "tod"]
    assert a.model is None, a.model
    assert all(c.confidence < 0.5 for c in a.alternatives)
    assert [n.code for n in asm.notes if n.code in ("no-model", "model-unsure")]
