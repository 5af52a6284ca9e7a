"""RTM in Blender: `blender/tests/check_rtm.py` imports the glTF of every corpus RTM (and one
skinned to a corpus P3D with `--p3d`) with Blender's glTF importer, and the same RTM and P3D
through the add-on's RTM import, and compares every bone's world matrix at every frame with
`retroanim play --json` (tolerances in the script); `blender/tests/check_rtm_export.py` writes
every corpus RTM imported with the add-on back through its RTM export and compares the two
files, and exports a two-bone armature keyed in Blender (checks and tolerances in the script).
Skipped loudly without `bpy` unless RETROANIM_REQUIRE_CORPUS=1."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO, corpus_file, corpus_files, require_blender


def test_blender_poses_rtm_exports_as_play_does(cli, tmp_path):
    require_blender("the Blender RTM check")
    rtms = corpus_files("RTM")
    model = corpus_file("p3d-mlod", "AGM_FastRoping/animbase/agm_fastroping.p3d")
    args = []
    for k, (_, rtm) in enumerate(rtms):
        gltf, play = tmp_path / f"rtm{k}.gltf", tmp_path / f"rtm{k}.jsonl"
        cli.run("convert", rtm, gltf)
        play.write_bytes(cli.run("play", rtm, "--json").stdout)
        args += [gltf, play]
        if k == 0:
            skinned = tmp_path / "skinned.gltf"
            cli.run("convert", rtm, skinned, "--p3d", model)
            args += [skinned, play, "--addon", rtm, model, skinned, play]
    p = subprocess.run([sys.executable, REPO / "blender" / "tests" / "check_rtm.py", *args],
                       capture_output=True, text=True, timeout=900)
    report = [l for l in p.stdout.splitlines() + p.stderr.splitlines() if "check_rtm" in l]
    print("\n".join(report))
    assert p.returncode == 0, "\n".join(report) or p.stderr[-3000:]
    assert sum("1 skinned meshes" in l for l in report) == 2, report
    assert sum("bone poses" in l for l in report) == len(rtms) + 2, report


def test_blender_rtm_export_writes_back_what_the_import_read(tmp_path):
    require_blender("the Blender RTM export check")
    rtms = [path for _, path in corpus_files("RTM")]
    model = corpus_file("p3d-mlod", "AGM_FastRoping/animbase/agm_fastroping.p3d")
    p = subprocess.run([sys.executable, REPO / "blender" / "tests" / "check_rtm_export.py",
                        tmp_path, model, *rtms], capture_output=True, text=True, timeout=900)
    report = [l for l in p.stdout.splitlines() + p.stderr.splitlines()
              if "check_rtm_export" in l]
    print("\n".join(report))
    assert p.returncode == 0, "\n".join(report) or p.stderr[-3000:]
    assert sum("imported (empties) and exported" in l for l in report) == len(rtms), report
    assert sum("imported (armature) and exported" in l for l in report) == 1, report
    assert any("hand-made armature" in l for l in report), report
    assert any("only with 'Replace existing files'" in l for l in report), report
