"""Blender as a real client of retroanim's skinned and morphed glTF: imports each GLB of
JOB.json, plays its animation and writes, at each time, the world position of every vertex of
every mesh that has an armature modifier or shape keys, as Blender evaluates it (the depsgraph:
shape keys at their animated values, then the armature), in glTF axes (Blender's (x, -z, y)
turned back). crates/retroanim/tests/pose_vertices.rs compares them with the console player.

Usage: python3 tests/blender/pose_vertices.py JOB.json OUT.json

JOB.json: [{"glb": path, "times": [seconds]}]. OUT.json: [{"glb", "frames": [[[x, y, z], ...]]}]:
per time, the vertices of the meshes in name order (the same order at every time). The scene
runs at 60 fps, so time t is Blender frame 60·t (every time given is a whole 1/60 s frame).
"""

import bpy

import client_job


def main():
    out = []
    for item, scene, frames_at in client_job.items("pose_vertices"):
        meshes = sorted(
            (
                o for o in scene.objects
                if o.type == "MESH" and (
                    any(m.type == "ARMATURE" for m in o.modifiers) or o.data.shape_keys is not None
                )
            ),
            key=lambda o: o.name,
        )
        frames = []
        for _ in frames_at:
            deps = bpy.context.evaluated_depsgraph_get()
            points = []
            for o in meshes:
                ev = o.evaluated_get(deps)
                mesh = ev.to_mesh()
                mw = ev.matrix_world
                for v in mesh.vertices:
                    p = mw @ v.co
                    points.append([p[0], p[2], -p[1]])
                ev.to_mesh_clear()
            frames.append(points)
        out.append({"glb": item["glb"], "frames": frames})
    client_job.write("pose_vertices", out)


main()
