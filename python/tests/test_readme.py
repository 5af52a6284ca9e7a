"""The README's "Python" section and the Python and Blender guides (docs/python.md,
docs/blender.md): every ```python block runs as written (in a scratch folder that sees the
repository's samples/), so the examples cannot rot."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO, require_corpus


def blocks(doc: str, section: str | None = None):
    text = (REPO / doc).read_text()
    if section is not None:
        m = re.search(rf"^## {section}\n(.*?)(?=^## )", text, re.S | re.M)
        assert m, f"{doc} has no '## {section}' section"
        text = m.group(1)
    found = re.findall(r"```python\n(.*?)```", text, re.S)
    assert found, f"{doc} has no python example"
    return found


PYTHON = blocks("README.md", "Python") + blocks("docs/python.md")
BLENDER = blocks("docs/blender.md")


def run(code: str, tmp_path, preamble: str = ""):
    (tmp_path / "samples").symlink_to(REPO / "samples")
    script = tmp_path / "example.py"
    script.write_text(preamble + code)
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, f"README example failed:\n{code}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_python_section_runs(index, tmp_path):
    run(PYTHON[index], tmp_path)
    assert (tmp_path / "swing.glb").read_bytes()[:4] == b"glTF"


@pytest.mark.parametrize("index", range(len(BLENDER)))
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
    run(BLENDER[index], tmp_path, preamble)
    assert (tmp_path / "flag-again.p3d").exists()
