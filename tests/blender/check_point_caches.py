"""Blender as a real client of retroanim's point-cache exports.

Usage: python3 tests/blender/check_point_caches.py CACHE.mdd CACHE.pc2 CACHE.glb

The three files hold the same animation (as `retroanim convert CACHE.mdd CACHE.pc2|CACHE.glb`
writes them). The MDD is parsed here independently (big-endian counts, times, positions) and is
the reference. Checks, at every frame:
  1. glTF: Blender's importer makes one shape key per frame (named from mesh.extras.targetNames),
     animated weights, and the evaluated mesh at Blender frame 24·t equals the frame at time t
     (Blender maps glTF (x, y, z) to (x, -z, y)).
  2. MDD through the Mesh Cache modifier (MESH_CACHE) on a mesh with the same vertices, in FRAME
     and TIME mode, with the modifier's default axes (no conversion).
  3. PC2 through the Mesh Cache modifier in FRAME mode (TIME mode is broken for PC2 in Blender:
     it divides by the frame rate twice).
Exits 0 when all hold, 1 with a message otherwise.
"""

import struct
import sys

import bpy

TOLERANCE = 1e-5


def fail(msg):
    print(f"check_point_caches: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def read_mdd(path):
    data = open(path, "rb").read()
    frames, points = struct.unpack(">ii", data[:8])
    times = struct.unpack(f">{frames}f", data[8 : 8 + 4 * frames])
    body = data[8 + 4 * frames :]
    size = 12 * points
    extra = len(body) - size * frames
    if extra not in (0, size):
        fail(f"{path}: {len(data)} bytes do not fit {frames} frames of {points} points")
    start = extra  # skip an uncounted rest frame
    out = []
    for f in range(frames):
        flat = struct.unpack(f">{3 * points}f", body[start + f * size : start + (f + 1) * size])
        out.append([flat[i : i + 3] for i in range(0, len(flat), 3)])
    return times, out


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = 24
    scene.render.fps_base = 1.0
    return scene


def evaluated(obj):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(depsgraph)
    return [tuple(v.co) for v in ev.data.vertices]


def compare(what, got, want):
    if len(got) != len(want):
        fail(f"{what}: {len(got)} vertices, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if any(abs(a - b) > TOLERANCE for a, b in zip(g, w)):
            fail(f"{what}: vertex {i} is {g}, expected {w}")


def check_gltf(path, times, frames):
    scene = reset()
    bpy.ops.import_scene.gltf(filepath=path)
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if len(meshes) != 1:
        fail(f"{path}: {len(meshes)} mesh objects imported, expected 1")
    obj = meshes[0]
    keys = obj.data.shape_keys
    if keys is None:
        fail(f"{path}: no shape keys imported")
    names = [k.name for k in keys.key_blocks][1:]
    want = [f"frame {i}" for i in range(len(frames))]
    if names != want:
        fail(f"{path}: shape keys {names}, expected {want}")
    action = keys.animation_data and keys.animation_data.action
    if action is None:
        fail(f"{path}: the shape key weights are not animated")
    for f, t in enumerate(times):
        frame = t * scene.render.fps
        if abs(frame - round(frame)) > 1e-4:
            fail(f"{path}: time {t} is not on a whole frame at 24 fps")
        scene.frame_set(round(frame))
        active = [k.name for k in keys.key_blocks[1:] if k.value > 0.5]
        if active != [f"frame {f}"]:
            fail(f"{path}: at frame {round(frame)} the weights select {active}, expected frame {f}")
        glb = [(x, -z, y) for (x, y, z) in frames[f]]
        compare(f"{path} at frame {round(frame)}", evaluated(obj), glb)
    print(f"glTF: {len(frames)} shape keys, animated weights, positions at every frame: ok")


def mesh_with(frames):
    mesh = bpy.data.meshes.new("cache")
    mesh.from_pydata([tuple(p) for p in frames[0]], [], [])
    obj = bpy.data.objects.new("cache", mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def check_cache(path, fmt, time_mode, times, frames):
    scene = reset()
    obj = mesh_with(frames)
    mod = obj.modifiers.new("cache", "MESH_CACHE")
    mod.cache_format = fmt
    mod.filepath = path
    mod.time_mode = time_mode
    mod.play_mode = "SCENE"
    mod.frame_start = 0.0
    for f, t in enumerate(times):
        # FRAME mode reads frame (scene frame − start); TIME mode finds scene frame / fps in the
        # MDD's time table.
        scene.frame_set(f)
        compare(f"{path} ({fmt}, {time_mode}) at frame {f}", evaluated(obj), frames[f])
    print(f"{fmt} through MESH_CACHE in {time_mode} mode, {len(frames)} frames: ok")


def main():
    if len(sys.argv) != 4:
        fail("usage: check_point_caches.py CACHE.mdd CACHE.pc2 CACHE.glb")
    mdd, pc2, glb = sys.argv[1:]
    times, frames = read_mdd(mdd)
    if len(frames) < 2:
        fail(f"{mdd}: needs at least 2 frames to check an animation")
    check_gltf(glb, times, frames)
    check_cache(mdd, "MDD", "FRAME", times, frames)
    check_cache(mdd, "MDD", "TIME", times, frames)
    check_cache(pc2, "PC2", "FRAME", times, frames)
    print("check_point_caches: all ok")


main()
