"""MIMe differences (VDF/NDF) through the Python package: Sony's TMDVIEW MIME sample exported
as glTF morph targets with its VDF and NDF, and authored back to the same files."""

import json
import struct
from pathlib import Path

import pytest

import retroanim

from conftest import corpus_dir

MIME = "ps1/sozud+psy-q/3.6/PSX/SAMPLE/GRAPHICS/TMDVIEW/MIME"


def _sample():
    d = corpus_dir() / MIME
    if not (d / "MD0.VDF").is_file():
        pytest.skip("no corpus")
    return d


def test_vdf_and_ndf_become_morph_targets_and_come_back(tmp_path):
    d = _sample()
    c = retroanim.convert(d / "MD0.TMD", "gltf", tmp_path / "md0.gltf", vdf=d / "MD0.VDF",
                          ndf=d / "MD0.NDF", mime_weights=[[0, 0, 0, 0], [4096, 0, 0, 0]])
    assert c.notes == []
    doc = json.loads(c.data)
    mesh = doc["meshes"][0]
    assert mesh["extras"]["targetNames"] == ["key 0", "key 1", "key 2", "key 3"]
    assert all("NORMAL" in t for t in mesh["primitives"][0]["targets"])
    assert doc["animations"][0]["channels"][0]["target"]["path"] == "weights"
    for kind in ("vdf", "ndf"):
        back = retroanim.convert(tmp_path / "md0.gltf", kind, tmd=d / "MD0.TMD")
        assert back.data == (d / f"MD0.{kind.upper()}").read_bytes()


def test_mime_options_are_refused_where_they_do_not_apply():
    d = _sample()
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(d / "MD0.TMD", "pmd", vdf=d / "MD0.VDF")
    assert "vdf" in str(e.value)
    # A weights frame with the wrong number of keys names the option.
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.convert(d / "MD0.TMD", "glb", vdf=d / "MD0.VDF", mime_weights=[[4096]])
    assert "mime-weights" in str(e.value)
