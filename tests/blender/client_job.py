"""What the client scripts (pose_matrices.py, pose_vertices.py) share: each job item's GLB
imported into an empty Blender scene at 60 fps, and its times turned into whole Blender frames
(every time given must be a whole 1/60 s frame; anything else stops the script with an error).
"""

import json
import sys

import bpy

FPS = 60


def items(script):
    """Yields (item, scene, frames) for each item of the job file (argv[1]): the GLB imported,
    the scene at 60 fps, and a generator that sets each of the item's times in turn."""
    job = json.load(open(sys.argv[1]))
    for item in job:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        scene = bpy.context.scene
        scene.render.fps = FPS
        scene.render.fps_base = 1.0
        bpy.ops.import_scene.gltf(filepath=item["glb"], guess_original_bind_pose=False)
        yield item, scene, _frames(script, scene, item["times"])


def _frames(script, scene, times):
    for t in times:
        f = t * FPS
        whole = int(round(f))
        if abs(f - whole) > 1e-6:
            print(f"{script}: time {t} is not on a 1/60 s frame", file=sys.stderr)
            sys.exit(1)
        scene.frame_set(whole)
        yield t


def write(script, out):
    """Writes the results to argv[2]."""
    json.dump(out, open(sys.argv[2], "w"))
    print(f"{script}: {len(out)} files")
