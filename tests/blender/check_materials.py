"""Blender as a real client of retroanim's glTF materials: imports each GLB named in
EXPECTED.json and checks its one material as Blender shows it.

Usage: python3 tests/blender/check_materials.py EXPECTED.json

EXPECTED.json (written by crates/retroanim/tests/materials.rs) maps each GLB path to
{"backface_culling": bool, "blended": bool, "unlit": bool}: backface culling off for
double-sided materials; alpha blending (surface render method BLENDED, or blend method BLEND
in older Blenders) for glTF BLEND; the importer's shadeless set-up (an emission shader behind a
light path switch) for KHR_materials_unlit. Exits 0 when all hold, 1 with a message otherwise.
"""

import json
import sys

import bpy


def fail(msg):
    print(f"check_materials: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def blended(m):
    method = getattr(m, "surface_render_method", None)
    if method is not None:
        return method == "BLENDED"
    return getattr(m, "blend_method", "OPAQUE") == "BLEND"


def main():
    if len(sys.argv) != 2:
        fail("usage: check_materials.py EXPECTED.json")
    expected = json.load(open(sys.argv[1]))
    for path, want in expected.items():
        bpy.ops.wm.read_factory_settings(use_empty=True)
        bpy.ops.import_scene.gltf(filepath=path)
        mats = {s.material for o in bpy.context.scene.objects for s in o.material_slots if s.material}
        if len(mats) != 1:
            fail(f"{path}: {len(mats)} materials on the objects, expected 1")
        m = mats.pop()
        nodes = {n.type for n in m.node_tree.nodes} if m.node_tree else set()
        got = {
            "backface_culling": bool(m.use_backface_culling),
            "blended": blended(m),
            "unlit": "EMISSION" in nodes and "LIGHT_PATH" in nodes,
        }
        if got != want:
            fail(f"{path}: material {m.name!r} is {got}, expected {want}")
    print(f"check_materials: {len(expected)} materials as expected")


main()
