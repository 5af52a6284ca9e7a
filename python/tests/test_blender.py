"""The Blender add-on, headless: `blender/tests/check_addon.py` imports a TOD with its TMD, an
HMD, a TMD, a textured TMD with its TIMs found beside it (the materials' images must equal the
TIMs decoded) and a P3D with LOD frames through the add-on's operators, compares poses with
`retroanim.play`, exports P3D LOD frames (the exported file must pass the CLI's `validate`
and `roundtrip`) and exports a keyed chain for the PlayStation (TOD + TMD, HMD), played back
against Blender's poses. Skipped loudly without `bpy` unless RETROANIM_REQUIRE_CORPUS=1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, corpus_file, require_blender


def _one(kind, suffix):
    return corpus_file(kind, suffix)


def test_addon_imports_and_exports_in_blender(cli, tmp_path):
    require_blender("the Blender add-on test")
    janken = "addons/graphics/TOD/JANKEN"
    args = [
        tmp_path,
        _one("TOD", f"{janken}/TOD/JAANKEN.TOD"),
        _one("TMD", f"{janken}/TMD/TE.TMD"),
        _one("HMD", "ANIM/INTERP/INTERP.HMD"),
        _one("p3d-mlod", "AGM_FastRoping/animbase/agm_fastroping.p3d"),
        _one("TMD", "MISC/60FRAME/GIULIETA.TMD"),
        _one("PMD", "addons/graphics/PMD/SHARE.PMD"),
        _one("RSD", "HMD/SCEI/ANIM/CUBE0/CUBE0.RSD"),
        _one("VDF", "TMDVIEW/MIME/MD0.VDF"),
    ]
    p = subprocess.run([sys.executable, REPO / "blender" / "tests" / "check_addon.py", *args],
                       capture_output=True, text=True, timeout=600)
    report = [l for l in p.stdout.splitlines() + p.stderr.splitlines() if "check_addon" in l]
    print("\n".join(report))
    assert p.returncode == 0, "\n".join(report) or p.stderr[-3000:]
    exported = json.load(open(tmp_path / "export.json"))["exported"]
    cli.run("validate", exported)
    cli.run("roundtrip", exported)


def test_addon_zip_carries_the_wheel_in_its_manifest(tmp_path):
    import tomllib
    import zipfile

    wheels = sorted((REPO / "target" / "wheels-test").glob("retroanim-*.whl"))
    if not wheels:
        pytest.skip("no wheel in target/wheels-test (scripts/test builds it)")
    out = tmp_path / "addon.zip"
    subprocess.run([sys.executable, REPO / "blender" / "build.py", "--wheel", wheels[-1],
                    "--out", out], check=True, capture_output=True)
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        manifest = tomllib.loads(z.read("blender_manifest.toml").decode())
    assert {"__init__.py", "bridge.py", "rtm.py", "blender_manifest.toml",
            f"wheels/{wheels[-1].name}"} <= names
    assert manifest["wheels"] == [f"./wheels/{wheels[-1].name}"]
    assert manifest["type"] == "add-on" and manifest["id"] == "retroanim"
    assert "files" in manifest["permissions"]
