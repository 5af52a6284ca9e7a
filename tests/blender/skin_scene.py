"""An armature-skinned mesh made in Blender and exported by Blender's own glTF exporter: the
input of crates/retroanim/tests/blender_skin.rs (glTF → HMD shared polygons, played back and
compared with the mesh Blender evaluates).

Usage: python3 tests/blender/skin_scene.py OUT.glb EXPECTED.json

The scene (60 fps, frames 0–40): an armature of three bones in a chain up +Z (0.1 m each)
whose object moves and whose second and third bones bend; a column of four square rings
(0.08 m across, 0.1 m apart) skinned to it through vertex groups, each vertex in one group at
weight 1 (rings 0 and 1 on the first bone, ring 2 on the second, ring 3 on the third).

EXPECTED.json: {"fps", "frames": [{"frame", "points": [[x, y, z] of every vertex in world
space, glTF axes]}]}: what Blender evaluates at every frame.
"""

import json
import math
import sys

import bpy
from mathutils import Quaternion

from scene_export import empty_scene, export_glb, world_points

FPS = 60
LAST = 40


def main():
    out_glb, out_json = sys.argv[1], sys.argv[2]
    scene = empty_scene(FPS, LAST)

    arm_data = bpy.data.armatures.new("rig")
    rig = bpy.data.objects.new("rig", arm_data)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    names = ["b0", "b1", "b2"]
    parent = None
    for i, n in enumerate(names):
        b = arm_data.edit_bones.new(n)
        b.head = (0, 0, 0.1 * i)
        b.tail = (0, 0, 0.1 * (i + 1))
        if parent is not None:
            b.parent = parent
            b.use_connect = True
        parent = b
    bpy.ops.object.mode_set(mode="OBJECT")

    verts, faces = [], []
    for ring in range(4):
        z = 0.02 + 0.1 * ring
        for k in range(4):
            a = k * math.pi / 2 + 0.3
            verts.append((0.04 * math.cos(a), 0.04 * math.sin(a), z))
    for ring in range(3):
        for k in range(4):
            a, b = ring * 4 + k, ring * 4 + (k + 1) % 4
            faces.append((a, b, b + 4, a + 4))
    me = bpy.data.meshes.new("column")
    me.from_pydata(verts, [], faces)
    me.update()
    col = bpy.data.objects.new("column", me)
    scene.collection.objects.link(col)
    groups = [col.vertex_groups.new(name=n) for n in names]
    ring_bone = [0, 0, 1, 2]
    for v in range(16):
        groups[ring_bone[v // 4]].add([v], 1.0, "REPLACE")
    col.parent = rig
    mod = col.modifiers.new("rig", "ARMATURE")
    mod.object = rig

    # Keys: the armature object moves; bones 1 and 2 bend about X and Y.
    for frame, (loc, b1, b2) in {
        0: ((0, 0, 0), 0.0, 0.0),
        20: ((0.05, 0.02, 0.03), 35.0, -20.0),
        40: ((0.1, -0.03, 0.05), 60.0, 25.0),
    }.items():
        rig.location = loc
        rig.keyframe_insert("location", frame=frame)
        pb1, pb2 = rig.pose.bones["b1"], rig.pose.bones["b2"]
        pb1.rotation_mode = pb2.rotation_mode = "QUATERNION"
        pb1.rotation_quaternion = Quaternion((1, 0, 0), math.radians(b1))
        pb2.rotation_quaternion = Quaternion((0, 1, 0), math.radians(b2))
        pb1.keyframe_insert("rotation_quaternion", frame=frame)
        pb2.keyframe_insert("rotation_quaternion", frame=frame)

    export_glb(out_glb, export_skins=True)

    frames = []
    for f in range(0, LAST + 1):
        scene.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        frames.append({"frame": f, "points": world_points(col, dg)})
    json.dump({"fps": FPS, "frames": frames}, open(out_json, "w"))


main()
