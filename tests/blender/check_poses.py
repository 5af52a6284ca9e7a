"""Blender as a real client of retroanim's glTF export of PlayStation animation (TOD and HMD):
imports an export and checks, at several frames, that named nodes' world position and
rotation/scale in Blender equal what `retroanim play` computes (the console's fixed-point player).

Usage: python3 tests/blender/check_poses.py ANIM.glb EXPECTED.json

EXPECTED.json (written by crates/retroanim/tests/psx_gltf.rs for TOD objects and
crates/retroanim/tests/hmd_blender.rs for HMD coordinates) holds, per checked frame, its time in
seconds and named nodes' world matrices from the player, already in glTF axes and metres:
{"frames": [{"time": t, "nodes": {"object 5": {"t": [x, y, z], "m": [[..], [..], [..]]}}}]}.

The scene's frame rate is set to 60 before the import, so glTF time t lands on Blender frame 60·t
(one frame per 1/60 s tick). Blender maps glTF (x, y, z) to its (x, -z, y). The console composes
parent chains in 16-bit fixed point and Blender in floating point: they may differ by a few units
of 1/4096 m (TOL). Exits 0 when all hold, 1 with a message otherwise.
"""

import json
import sys

import bpy

FPS = 60
TOL = 5e-3


def fail(msg):
    print(f"check_poses: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def to_blender_vec(v):
    x, y, z = v
    return (x, -z, y)


def to_blender_mat(m):
    c = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    cm = [[sum(c[i][k] * m[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    return [[sum(cm[i][k] * c[j][k] for k in range(3)) for j in range(3)] for i in range(3)]


def main():
    if len(sys.argv) != 3:
        fail("usage: check_poses.py ANIM.glb EXPECTED.json")
    expected = json.load(open(sys.argv[2]))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.render.fps_base = 1.0
    bpy.ops.import_scene.gltf(filepath=sys.argv[1])
    objs = scene.objects
    checked = 0
    for frame in expected["frames"]:
        f = frame["time"] * FPS
        whole = int(round(f))
        if abs(f - whole) > 1e-6:
            fail(f"time {frame['time']} is not on a 1/60 s frame")
        scene.frame_set(whole)
        for name, want in frame["nodes"].items():
            if name not in objs:
                fail(f"no Blender object {name!r} (have {sorted(o.name for o in objs)[:10]}...)")
            mw = objs[name].matrix_world
            got_t = (mw[0][3], mw[1][3], mw[2][3])
            want_t = to_blender_vec(want["t"])
            if any(abs(a - b) > TOL for a, b in zip(got_t, want_t)):
                fail(f"frame {whole} {name}: position {got_t}, expected {want_t}")
            want_m = to_blender_mat(want["m"])
            for i in range(3):
                for j in range(3):
                    if abs(mw[i][j] - want_m[i][j]) > TOL:
                        fail(f"frame {whole} {name}: matrix[{i}][{j}] {mw[i][j]}, expected {want_m[i][j]}")
            checked += 1
    if checked == 0:
        fail("nothing to check")
    print(f"check_poses: {checked} node poses match")


main()
