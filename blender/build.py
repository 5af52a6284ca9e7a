"""Builds the add-on as a Blender extension zip that carries the retroanim wheel.

    python3 blender/build.py [--wheel WHEEL] [--out retroanim-blender.zip]

Without --wheel the wheel is built first (`maturin build --release` of python/). The zip holds
the add-on's modules (`__init__.py`, `bridge.py`, `rtm.py`), `blender_manifest.toml` (with `wheels = ["./wheels/<wheel>"]` added, so Blender
installs the package into its own Python) and `wheels/<wheel>`. Install it in Blender from
Preferences → Get Extensions → Install from Disk, or `blender --command extension install-file`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
#: The add-on's Python modules, as Blender loads them from the zip.
ADDON_MODULES = ("__init__.py", "bridge.py", "rtm.py")


def build_wheel(out_dir: Path) -> Path:
    subprocess.run([sys.executable, "-m", "maturin", "build", "--release", "-m",
                    str(REPO / "python" / "Cargo.toml"), "-o", str(out_dir)], check=True)
    wheels = sorted(out_dir.glob("retroanim-*.whl"))
    if not wheels:
        raise SystemExit(f"maturin left no retroanim wheel in {out_dir}")
    return wheels[-1]


def build_zip(wheel: Path, out: Path) -> Path:
    manifest = (HERE / "blender_manifest.toml").read_text()
    manifest = manifest.replace("\n[permissions]",
                                f'\nwheels = ["./wheels/{wheel.name}"]\n\n[permissions]', 1)
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for module in ADDON_MODULES:
            z.write(HERE / module, module)
        z.writestr("blender_manifest.toml", manifest)
        z.write(wheel, f"wheels/{wheel.name}")
    tmp.replace(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, help="a retroanim wheel already built")
    ap.add_argument("--out", type=Path, default=Path("retroanim-blender.zip"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        wheel = args.wheel or build_wheel(Path(d))
        print(build_zip(wheel, args.out))


if __name__ == "__main__":
    main()
