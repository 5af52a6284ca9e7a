"""The README's "Python" and "Blender" sections: every ```python block runs as written (in a
scratch folder that sees the repository's samples/), so the examples cannot rot."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO, require_corpus


def blocks(section: str):
    text = (REPO / "README.md").read_text()
    m = re.search(rf"^## {section}\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, f"README has no '## {section}' section"
    found = re.findall(r"```python\n(.*?)```", m.group(1), re.S)
    assert found, f"README '## {section}' has no python example"
    return found


def run(code: str, tmp_path, preamble: str = ""):
    (tmp_path / "samples").symlink_to(REPO / "samples")
    script = tmp_path / "example.py"
    script.write_text(preamble + code)
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, f"README example failed:\n{code}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"


@pytest.mark.parametrize("index", range(len(blocks("Python"))))
def test_python_section_runs(index, tmp_path):
    run(blocks("Python")[index], tmp_path)
    assert (tmp_path / "swing.glb").read_bytes()[:4] == b"glTF"


@pytest.mark.parametrize("index", range(len(blocks("Blender"))))
def test_blender_section_runs(index, tmp_path):
    has_bpy = subprocess.run([sys.executable, "-c", "import bpy"], capture_output=True).returncode == 0
    if not has_bpy:
        if require_corpus():
            pytest.fail("RETROANIM_REQUIRE_CORPUS=1 but bpy cannot be imported")
        print("\n*** SKIPPING the README's Blender example: no bpy ***\n", file=sys.stderr)
        pytest.skip("no bpy")
    # The tests import the add-on folder under the name the example uses.
    preamble = (
        "import importlib.util, sys\n"
        f"_spec = importlib.util.spec_from_file_location('retroanim_blender', {str(REPO / 'blender' / '__init__.py')!r})\n"
        "_mod = importlib.util.module_from_spec(_spec)\n"
        "sys.modules['retroanim_blender'] = _mod\n"
        "_spec.loader.exec_module(_mod)\n"
    )
    run(blocks("Blender")[index], tmp_path, preamble)
    assert (tmp_path / "flag-again.p3d").exists()
