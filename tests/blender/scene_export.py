"""What the Blender authoring scenes (author_scene.py, skin_scene.py) share: glTF axes, the
export with Blender's own glTF exporter, and a mesh's evaluated vertices."""

import bpy
from mathutils import Matrix

# glTF (x, y, z) is Blender (x, -z, y).
C = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))
C_INV = C.inverted()


def empty_scene(fps, last):
    """A new empty scene at `fps` frames per second, frames 0..=`last`."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = fps
    scene.render.fps_base = 1.0
    scene.frame_start, scene.frame_end = 0, last
    return scene


def export_glb(path, **extra):
    """The scene's active actions over the frame range, Y up, modifiers not applied."""
    bpy.ops.export_scene.gltf(
        filepath=path,
        export_format="GLB",
        export_animations=True,
        export_yup=True,
        export_apply=False,
        export_frame_range=True,
        export_animation_mode="ACTIVE_ACTIONS",
        **extra,
    )


def world_points(obj, dg):
    """Every vertex of `obj` as Blender evaluates it (modifiers, shape keys), in world space,
    glTF axes."""
    ev = obj.evaluated_get(dg)
    mesh = ev.to_mesh()
    pts = []
    for v in mesh.vertices:
        p = C_INV @ (ev.matrix_world @ v.co)
        pts.append([p.x, p.y, p.z])
    ev.to_mesh_clear()
    return pts
