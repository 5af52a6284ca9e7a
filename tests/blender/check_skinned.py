"""Blender as a real client of retroanim's glTF skinning (HMD shared polygons): imports an
export and checks, at several frames, that the evaluated (armature-deformed) vertices of the
skinned meshes lie where `retroanim play` computes the shared vertices.

Usage: python3 tests/blender/check_skinned.py MODEL.glb EXPECTED.json

EXPECTED.json (written by crates/retroanim/tests/hmd_blender.rs) holds, per checked frame, its
time in seconds, the tolerance in metres, and the player's calculated vertices in glTF axes and
metres: {"tolerance": tol, "frames": [{"time": t, "points": [[x, y, z], ...]}]}.

Every evaluated vertex must lie within the tolerance of an expected point, and every frame must
draw at least one. The scene runs at 60 fps, so glTF time t is Blender frame 60·t. Blender maps
glTF (x, y, z) to its (x, -z, y). Exits 0 when all hold, 1 with a message otherwise.
"""

import json
import sys

import bpy

FPS = 60


def fail(msg):
    print(f"check_skinned: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        fail("usage: check_skinned.py MODEL.glb EXPECTED.json")
    expected = json.load(open(sys.argv[2]))
    tol = expected["tolerance"]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.render.fps_base = 1.0
    bpy.ops.import_scene.gltf(filepath=sys.argv[1])
    skinned = [
        o for o in scene.objects
        if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)
    ]
    if not skinned:
        fail("no skinned mesh (mesh with an armature modifier) imported")
    checked = 0
    for frame in expected["frames"]:
        f = frame["time"] * FPS
        whole = int(round(f))
        if abs(f - whole) > 1e-6:
            fail(f"time {frame['time']} is not on a 1/60 s frame")
        scene.frame_set(whole)
        want = [(x, -z, y) for x, y, z in frame["points"]]
        deps = bpy.context.evaluated_depsgraph_get()
        for o in skinned:
            ev = o.evaluated_get(deps)
            mesh = ev.to_mesh()
            mw = ev.matrix_world
            for v in mesh.vertices:
                p = mw @ v.co
                best = min(max(abs(p[i] - w[i]) for i in range(3)) for w in want)
                if best > tol:
                    fail(f"frame {whole} {o.name}: vertex {tuple(p)} is {best} m from every shared vertex")
                checked += 1
            ev.to_mesh_clear()
    if checked == 0:
        fail("nothing to check")
    print(f"check_skinned: {checked} skinned vertices match")


main()
