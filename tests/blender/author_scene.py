"""A scene authored in Blender, as a PlayStation modder would make one, exported by Blender's own
glTF exporter: the input of crates/retroanim/tests/blender_author.rs (glTF → TMD + TIM + TOD and
→ HMD, played back and compared with what Blender shows).

Usage: python3 tests/blender/author_scene.py OUT.glb EXPECTED.json

The scene (60 fps, frames 0–40): an armature-free hierarchy of three meshes, `base` → `arm` →
`hand`, each with rotation and translation keys; `base` textured with a 16 × 16 image of 6
colours; `hand` with two shape keys (`up`, `wide`) whose values are keyed.

EXPECTED.json: {"fps", "frames": [{"frame", "nodes": {name: 4x4 world matrix rows, in glTF
axes}, "hand_points": [[x, y, z] of every `hand` vertex in world space, shape keys applied]}]},
"texture": {"width", "height", "rgba": [bytes]}}: what Blender evaluates at every frame.
"""

import json
import math
import os
import sys
import tempfile

import bpy

from scene_export import C, C_INV, empty_scene, export_glb, world_points

FPS = 60
LAST = 40
# The texture's colours: 5-bit exact, so a 4 bpp TIM keeps them.
COLOURS = [
    (255, 0, 0),
    (0, 255, 0),
    (0, 0, 255),
    (255, 255, 255),
    (132, 66, 33),
    (16, 16, 16),
]


def rows(m):
    g = C_INV @ m @ C
    return [[g[i][j] for j in range(4)] for i in range(4)]


def textured_material(tmp):
    w = h = 16
    img = bpy.data.images.new("checker", w, h, alpha=True)
    px = []
    for y in range(h):
        for x in range(w):
            r, g, b = COLOURS[(x // 4 + 2 * (y // 4) + (x + y) % 2) % len(COLOURS)]
            px += [r / 255.0, g / 255.0, b / 255.0, 1.0]
    img.pixels = px
    path = os.path.join(tmp, "checker.png")
    img.filepath_raw = path
    img.file_format = "PNG"
    img.save()
    img = bpy.data.images.load(path)
    mat = bpy.data.materials.new("checker")
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = nodes.get("Principled BSDF")
    tex = nodes.new("ShaderNodeTexImage")
    tex.image = img
    tex.interpolation = "Closest"
    mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def key_transform(obj, frame, loc, rot_deg):
    obj.location = loc
    obj.rotation_euler = [math.radians(a) for a in rot_deg]
    obj.keyframe_insert("location", frame=frame)
    obj.keyframe_insert("rotation_euler", frame=frame)


def main():
    out_glb, out_json = sys.argv[1], sys.argv[2]
    scene = empty_scene(FPS, LAST)
    tmp = tempfile.mkdtemp()

    bpy.ops.mesh.primitive_cube_add(size=1.0)
    base = bpy.context.object
    base.name = "base"
    base.data.materials.append(textured_material(tmp))
    bpy.ops.mesh.primitive_cube_add(size=0.5)
    arm = bpy.context.object
    arm.name = "arm"
    arm.parent = base
    bpy.ops.mesh.primitive_cone_add(vertices=6, radius1=0.3, depth=0.6)
    hand = bpy.context.object
    hand.name = "hand"
    hand.parent = arm

    key_transform(base, 0, (0.0, 0.0, 0.0), (0, 0, 0))
    key_transform(base, 20, (0.5, 0.25, 0.0), (0, 0, 45))
    key_transform(base, LAST, (1.0, 0.0, 0.5), (10, 0, 90))
    key_transform(arm, 0, (0.0, 0.0, 1.0), (0, 0, 0))
    key_transform(arm, 15, (0.0, 0.2, 1.0), (30, 0, 0))
    key_transform(arm, LAST, (0.0, 0.0, 1.2), (-20, 15, 0))
    key_transform(hand, 0, (0.0, 0.0, 0.6), (0, 0, 0))
    key_transform(hand, 25, (0.1, 0.0, 0.7), (0, 60, 20))
    key_transform(hand, LAST, (0.0, 0.0, 0.6), (0, 0, -30))

    hand.shape_key_add(name="Basis")
    up = hand.shape_key_add(name="up", from_mix=False)
    wide = hand.shape_key_add(name="wide", from_mix=False)
    for i, v in enumerate(hand.data.vertices):
        co = v.co
        if co.z > 0.0:
            up.data[i].co = (co.x, co.y, co.z + 0.3)
        wide.data[i].co = (co.x * 1.5, co.y * 1.5, co.z)
    for frame, (u, w) in [(0, (0.0, 0.0)), (20, (1.0, 0.0)), (LAST, (0.5, 1.0))]:
        up.value, wide.value = u, w
        up.keyframe_insert("value", frame=frame)
        wide.keyframe_insert("value", frame=frame)

    export_glb(out_glb, export_morph=True)

    frames = []
    dg = bpy.context.evaluated_depsgraph_get()
    for f in range(0, LAST + 1):
        scene.frame_set(f)
        dg = bpy.context.evaluated_depsgraph_get()
        nodes = {o.name: rows(o.matrix_world) for o in (base, arm, hand)}
        frames.append({"frame": f, "nodes": nodes, "hand_points": world_points(hand, dg)})
    img = bpy.data.images["checker.png"]
    w, h = img.size
    # Blender's rows run bottom-up; the PNG's top-down.
    px = [round(c * 255) for c in img.pixels[:]]
    rgba = []
    for y in reversed(range(h)):
        rgba += px[y * w * 4 : (y + 1) * w * 4]
    json.dump(
        {"fps": FPS, "frames": frames, "texture": {"width": w, "height": h, "rgba": rgba}},
        open(out_json, "w"),
    )


if __name__ == "__main__":
    main()
