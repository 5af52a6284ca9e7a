"""Blender as a real client of retroanim's P3D LOD-frame exports.

Usage: python3 tests/blender/check_p3d.py LOD.json FRAMES.mdd FRAMES.pc2 LOD.glb [CLOSED.json CLOSED.glb]

LOD.json (written by the Rust test from the P3D model) holds the LOD's points and faces and its
frames, all in P3D coordinates. Checks:
  1. A mesh built the way Arma 3 Object Builder's importer builds it (one vertex per P3D point,
     in point order, at Blender (x, z, y); faces in file order) plays our MDD and PC2 through the
     Mesh Cache modifier with its default axes, in FRAME mode: at scene frame f the evaluated
     vertices are frame f's points at (x, z, y).
  2. That mesh's faces, with Blender's counter-clockwise rule, face where the LOD's fronts face
     (the side opposite the stored normals' cross-product direction; for the flag sample: −z in
     P3D, −y in Blender).
  3. Our glTF imports with one shape key per frame and animated weights; at each frame's time the
     evaluated vertices are that frame's points at glTF (−x, y, z), i.e. Blender (−x, −z, y).
  4. Optionally, a closed real LOD (CLOSED.json: points and faces) built Object Builder's way,
     and our glTF of it, enclose a positive signed volume in Blender: their faces point out.
Exits 0 when all hold, 1 with a message otherwise.
"""

import json
import sys

import bpy

TOLERANCE = 1e-5


def fail(msg):
    print(f"check_p3d: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


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


def close(a, b):
    return all(abs(x - y) <= TOLERANCE for x, y in zip(a, b))


def compare(what, got, want):
    if len(got) != len(want):
        fail(f"{what}: {len(got)} vertices, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if not close(g, w):
            fail(f"{what}: vertex {i} is {g}, expected {w}")


def object_builder_mesh(lod):
    mesh = bpy.data.meshes.new("lod")
    mesh.from_pydata([(x, z, y) for (x, y, z) in lod["points"]], [], lod["faces"])
    mesh.update()
    obj = bpy.data.objects.new("lod", mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def check_cache(path, fmt, lod):
    scene = reset()
    obj = object_builder_mesh(lod)
    mod = obj.modifiers.new("cache", "MESH_CACHE")
    mod.cache_format = fmt
    mod.filepath = path
    mod.time_mode = "FRAME"
    mod.play_mode = "SCENE"
    mod.frame_start = 0.0
    for f, frame in enumerate(lod["frames"]):
        scene.frame_set(f)
        compare(f"{path} at frame {f}", evaluated(obj), [(x, z, y) for (x, y, z) in frame])
    print(f"{fmt}: {len(lod['frames'])} frames through Mesh Cache with default axes: ok")


def check_facing(lod):
    reset()
    obj = object_builder_mesh(lod)
    want = tuple(lod["front_blender"])
    for p in obj.data.polygons:
        if not close(tuple(p.normal), want):
            fail(f"face {p.index} faces {tuple(p.normal)}, expected {want}")
    print("Object Builder-style mesh: every face faces the LOD's front: ok")


def check_gltf(path, lod):
    scene = reset()
    bpy.ops.import_scene.gltf(filepath=path)
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if len(meshes) != 1:
        fail(f"{path}: {len(meshes)} mesh objects imported, expected 1")
    obj = meshes[0]
    keys = obj.data.shape_keys
    if keys is None or len(keys.key_blocks) - 1 != len(lod["frames"]):
        fail(f"{path}: expected {len(lod['frames'])} shape keys")
    if not (keys.animation_data and keys.animation_data.action):
        fail(f"{path}: the shape key weights are not animated")
    for f, (t, frame) in enumerate(zip(lod["times"], lod["frames"])):
        at = t * scene.render.fps
        if abs(at - round(at)) > 1e-4:
            fail(f"{path}: time {t} is not on a whole frame at 24 fps")
        scene.frame_set(round(at))
        got = sorted(evaluated(obj))
        want = sorted((-x, -z, y) for (x, y, z) in frame)
        compare(f"{path} at frame {round(at)}", got, want)
    print(f"glTF: {len(lod['frames'])} shape keys, animated weights, positions at every frame: ok")


def signed_volume(obj):
    """Signed volume of the mesh's polygons (fans), by Blender's own vertex order per polygon."""
    co = [v.co for v in obj.data.vertices]
    total = 0.0
    for p in obj.data.polygons:
        vs = [co[i] for i in p.vertices]
        for k in range(1, len(vs) - 1):
            total += vs[0].dot(vs[k].cross(vs[k + 1])) / 6.0
    return total


def check_closed(lod_path, glb):
    reset()
    lod = json.load(open(lod_path))
    v = signed_volume(object_builder_mesh(lod))
    if v <= 0:
        fail(f"{lod_path}: Object Builder-style mesh encloses {v} (faces point in)")
    scene = reset()
    bpy.ops.import_scene.gltf(filepath=glb)
    obj = [o for o in scene.objects if o.type == "MESH"][0]
    w = signed_volume(obj)
    if abs(w - v) > 1e-4 * max(1.0, abs(v)):
        fail(f"{glb}: encloses {w}, the Object Builder-style mesh {v}")
    print(f"closed LOD: volume {v:.5f} both ways, faces point out: ok")


def main():
    lod_path, mdd, pc2, glb = sys.argv[1:5]
    lod = json.load(open(lod_path))
    check_cache(mdd, "MDD", lod)
    check_cache(pc2, "PC2", lod)
    check_facing(lod)
    check_gltf(glb, lod)
    if len(sys.argv) > 6:
        check_closed(sys.argv[5], sys.argv[6])


main()
