"""Blender as a real client of retroanim's animated glTF: imports each GLB of JOB.json, plays
its animation and writes named nodes' world matrices at the given times to OUT.json, in glTF
axes (Blender's (x, -z, y) turned back). crates/retroanim/tests/pose_clients.rs compares them
with the console player.

Usage: python3 tests/blender/pose_matrices.py JOB.json OUT.json

JOB.json: [{"glb": path, "times": [seconds], "nodes": [name]}]. OUT.json: per job, per time,
per node {"m": 4x4 rows} for a node Blender made an object, {"bone": 4x4, "bone_rest": 4x4} for
one it made an armature bone (the importer turns bones, so the test compares the pose relative
to the rest pose). The scene runs at 60 fps, so time t is Blender frame 60·t (every time given
is a whole 1/60 s frame).
"""

import bpy  # noqa: F401 (mathutils comes with bpy)
from mathutils import Matrix

import client_job
# glTF (x, y, z) is Blender (x, -z, y).
C = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))
C_INV = C.inverted()


def rows(m):
    g = C_INV @ m @ C
    return [[g[i][j] for j in range(4)] for i in range(4)]


def main():
    out = []
    for item, scene, frames_at in client_job.items("pose_matrices"):
        objs = scene.objects
        bones = {}
        for o in objs:
            if o.type == "ARMATURE":
                for b in o.pose.bones:
                    bones[b.name] = (o, b)
        frames = []
        for _ in frames_at:
            nodes = []
            for name in item["nodes"]:
                if name in bones:
                    arm, b = bones[name]
                    nodes.append({
                        "bone": rows(arm.matrix_world @ b.matrix),
                        "bone_rest": rows(arm.matrix_world @ b.bone.matrix_local),
                    })
                elif name in objs:
                    nodes.append({"m": rows(objs[name].matrix_world)})
                else:
                    nodes.append(None)
            frames.append(nodes)
        out.append({"glb": item["glb"], "frames": frames})
    client_job.write("pose_matrices", out)


main()
