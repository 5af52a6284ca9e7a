"""Blender as a real client of retroanim's glTF exporter: imports the exporter test's sample
scene (crates/retroanim/tests/gltf_export.rs, `sample_scene`) and checks what a user would see.

Usage: python3 tests/blender/check_sample_scene.py SAMPLE.glb

Blender maps glTF (x, y, z) to its (x, -z, y) and glTF time t to frame 24·t. Values are checked
at key times only (Blender interpolates rotations component-wise, not by slerp).
Exits 0 when everything holds, 1 with a message otherwise.
"""

import sys

import bpy

TOL = 1e-3


def fail(msg):
    print(f"check_sample_scene: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def close(what, got, want):
    got = tuple(got)
    if len(got) != len(want) or any(abs(a - b) > TOL for a, b in zip(got, want)):
        fail(f"{what}: {got}, expected {want}")


def main():
    if len(sys.argv) != 2:
        fail("usage: check_sample_scene.py SAMPLE.glb")
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    bpy.ops.import_scene.gltf(filepath=sys.argv[1])
    objs = scene.objects

    # Hierarchy and object kinds (unused meshes, cameras and lights were left out).
    want = {
        "root": ("EMPTY", None),
        "body": ("MESH", "root"),
        "arm": ("MESH", "body"),
        "camera": ("CAMERA", "root"),
        "sun": ("LIGHT", None),
        "lamp": ("LIGHT", "arm"),
        "ghost": ("MESH", None),
    }
    got = {o.name: (o.type, o.parent.name if o.parent else None) for o in objs}
    if got != want:
        fail(f"objects {got}, expected {want}")
    if objs["sun"].data.type != "SUN" or objs["lamp"].data.type != "SPOT":
        fail(f"light types {objs['sun'].data.type}, {objs['lamp'].data.type}")
    cam = objs["camera"].data
    close("camera (yfov, znear, zfar)", (cam.angle_y, cam.clip_start, cam.clip_end), (0.8, 0.1, 100.0))

    # Morph targets: named shape keys, stepped weights.
    keys = objs["body"].data.shape_keys
    names = [k.name for k in keys.key_blocks][1:] if keys else []
    if names != ["up", "twist"]:
        fail(f"shape keys {names}, expected ['up', 'twist']")
    # The texture came through as an image on the material.
    if not any(img.size[0] == 4 and img.size[1] == 4 for img in bpy.data.images):
        fail("the 4x4 texture was not imported")

    checks = [
        # frame, weights (up, twist), body location, arm scale, ghost scale, camera location
        (0, (0.0, 0.0), (0, 0, 1.0), 2.0, 1.0, (0, -8, 2)),
        (12, (1.0, 0.0), (0, 0, 1.25), 1.75, 1.0, None),
        (24, (0.0, 1.0), (0, 0, 1.5), 0.0, 0.0, None),
        (30, (0.0, 1.0), (0, 0, 1.625), 0.0, 0.0, None),
        (40, (0.0, 1.0), (0, 0, 1.8333), 1.1667, 0.0, None),
        (48, (0.0, 1.0), (0, 0, 2.0), 1.0, 0.0, (0, -6, 2)),
    ]
    for frame, weights, body, arm, ghost, camera in checks:
        scene.frame_set(frame)
        close(f"frame {frame} weights", [k.value for k in keys.key_blocks[1:]], weights)
        close(f"frame {frame} body location", objs["body"].location, body)
        # Visibility became scale: 0 while hidden, times the animated scale while shown.
        close(f"frame {frame} arm scale", objs["arm"].scale, (arm,) * 3)
        close(f"frame {frame} ghost scale", objs["ghost"].scale, (ghost,) * 3)
        if camera:
            close(f"frame {frame} camera location", objs["camera"].location, camera)
    scene.frame_set(24)
    close("frame 24 root rotation (w, x, y, z)", objs["root"].rotation_quaternion, (0.7071, 0, 0, 0.7071))
    print("check_sample_scene: all ok")


main()
