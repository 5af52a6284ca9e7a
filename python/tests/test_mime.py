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


def test_play_mime_is_the_variant_each_key_was_made_from():
    d = _sample()
    for k in range(4):
        played = retroanim.play_mime(d / "MD0.VDF", d / "MD0.TMD", {k: 4096})
        variant = json.loads(retroanim.read(d / f"MD{k + 1}.TMD").to_json())
        want = [[v["x"], v["y"], v["z"]] for v in variant["model"]["objects"][0]["vertices"]]
        assert played[0].tolist() == want, f"key {k}"
    # A list of one weight per key says the same; the wrong count names the option.
    assert (retroanim.play_mime(d / "MD0.VDF", d / "MD0.TMD", [0, 0, 4096, 0])[0]
            == retroanim.play_mime(d / "MD0.VDF", d / "MD0.TMD", {2: 4096})[0]).all()
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.play_mime(d / "MD0.VDF", d / "MD0.TMD", [4096])
    assert "weights" in str(e.value)


def test_assemble_pairs_the_vdf_with_its_base_and_ndf_and_render_draws_them(tmp_path):
    d = _sample()
    asm = retroanim.assemble([d])
    vdf = asm.asset(d / "MD0.VDF")
    assert vdf.format == "vdf"
    assert Path(vdf.model.source.container).name == "MD0.TMD"
    assert Path(vdf.partner.container).name == "MD0.NDF"
    # The variants fit too: shown, not used.
    assert sorted(Path(a.source.container).name for a in vdf.alternatives) == [
        f"MD{k}.TMD" for k in range(1, 5)]
    assert all(a.confidence < 0.5 for a in vdf.alternatives)
    keys = retroanim.render(d / "MD0.VDF", tmp_path / "keys.png", tmd=d / "MD0.TMD",
                            ndf=d / "MD0.NDF")
    assert keys.frames == 4
    one = retroanim.render(d / "MD0.VDF", tmp_path / "k1.png", tmd=d / "MD0.TMD",
                           ndf=d / "MD0.NDF", weights={1: 4096}, yaw=45)
    same = retroanim.render(d / "MD0.VDF", tmp_path / "f1.png", tmd=d / "MD0.TMD",
                            ndf=d / "MD0.NDF", frames=(1, 2), yaw=45)
    assert one.frames == 1 and one.data == same.data
    with pytest.raises(retroanim.OptionError) as e:
        retroanim.render(d / "MD0.TMD", tmp_path / "no.png", weights={0: 4096})
    assert "weights" in str(e.value)
    assert not (tmp_path / "no.png").exists()
