"""OFP/Arma RTM animations in and out of Blender, through the library's RTM ↔ glTF conversions.

Import: ``retroanim.convert(rtm, "glb")`` (one joint per bone, nested by a ``model.cfg``
skeleton; with a P3D model, its LOD skinned to the bones) handed to Blender's glTF importer.
Each imported top-level object keeps the RTM's record (bone order, displacement, ``RTM_MDAT``
properties: the glTF scene's ``extras.rtm``) as the custom property :data:`RECORD`.

Export: the active armature's action (or, with no armature active, the scene's animation)
through Blender's glTF exporter (:func:`bridge.export_glb`) and
``retroanim.convert(glb, "rtm", ...)``. Phase 0..1 spans the action's frame range; the bones are
the recorded ones when the armature (or the scene) came from an RTM import, else the
armature's deform bones; the matrices are relative to the armature's rest pose, or, for an
imported RTM, to the origin the import bound it at (``rest="origin"``).
"""

from __future__ import annotations

import json
import struct

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from .bridge import REPLACE_HELP, export_glb, import_glb, retroanim_package, run_reporting, \
    whole_frame_end

#: The custom property holding an imported RTM's record (``extras.rtm`` of its glTF).
RECORD = "retroanim_rtm"

#: How the export picks the RTM's frames.
FRAMES = [
    ("AUTO", "Auto", "One frame per key when every key interpolates linearly (an imported "
                     "RTM), else one per scene frame"),
    ("KEYS", "Keys", "One frame per key of the action (the engine interpolates linearly "
                     "between them)"),
    ("EVERY", "Every frame", "One frame per scene frame of the action's range, as Blender "
                             "evaluates it (eases, constraints and drivers baked)"),
]


def import_rtm(context, filepath: str, *, p3d: str = "", lod: float = -1.0,
               skeleton: str = "", duration: float = 0.0):
    """Imports an OFP/Arma RTM animation as retroanim exports it to glTF (one joint per bone,
    nested by ``skeleton``, a ``model.cfg``; with ``p3d`` the model's LOD skinned to the
    bones); returns (objects, notes). The top-level objects keep the RTM's record
    (:data:`RECORD`), which the export reads."""
    ra = retroanim_package()
    model = ra.read(filepath)
    if model.format != "rtm":
        raise ra.OptionError(f"{filepath}: a {model.format} file, not an RTM")
    opts = {}
    if p3d:
        opts["p3d"] = p3d
        if lod >= 0:
            opts["lod"] = lod
    if skeleton:
        opts["skeleton"] = skeleton
    if duration > 0:
        opts["duration"] = duration
    result = ra.convert(model, "glb", **opts)
    # The bones rest at the first frame's pose (the nodes' rest), not at the identity inverse
    # bind matrices (every bone at the origin).
    objects = import_glb(context, result.data, guess_original_bind_pose=False)
    record = _glb_json(result.data)["scenes"][0].get("extras", {}).get("rtm")
    for obj in objects:
        obj["retroanim_source"] = filepath
        if record is not None and obj.parent not in objects:
            obj[RECORD] = {k: v for k, v in record.items() if v is not None}
    return objects, list(result.notes)


class IMPORT_OT_retroanim_rtm(bpy.types.Operator, ImportHelper):
    """Import an Operation Flashpoint / Arma RTM animation, optionally on its P3D (via retroanim)"""

    bl_idname = "import_scene.retroanim_rtm"
    bl_label = "Import OFP/Arma RTM animation"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".rtm"
    filter_glob: StringProperty(default="*.rtm;*.RTM", options={"HIDDEN"})
    p3d: StringProperty(name="Model (P3D)", subtype="FILE_PATH", default="",
                        description="An MLOD P3D whose named selections name the bones: "
                                    "its LOD is imported skinned to them (empty: bones only)")
    lod: FloatProperty(name="LOD", default=-1.0,
                       description="With a model: the LOD resolution (-1: the first naming a bone)")
    skeleton: StringProperty(name="Skeleton (model.cfg)", subtype="FILE_PATH", default="",
                             description="A model.cfg whose CfgSkeletons nest the bones "
                                         "(empty: flat)")
    duration: FloatProperty(name="Duration", default=0.0, min=0.0,
                            description="Seconds the animation's phase 0..1 lasts (0: 1 s)")

    def execute(self, context):
        return run_reporting(self, lambda: import_rtm(
            context, self.filepath, p3d=self.p3d, lod=self.lod, skeleton=self.skeleton,
            duration=self.duration)[1])


def _glb_json(data: bytes) -> dict:
    """The JSON chunk of a GLB."""
    length = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + length])


def _root(obj):
    while obj is not None and obj.parent is not None:
        obj = obj.parent
    return obj


def record_of(context, armature=None):
    """The RTM record an export starts from: the armature's (or, without one, that of the
    active object's top-level parent, else the scene's ``rtm`` property, which Blender's glTF
    importer sets from the last glTF scene it read); ``None`` for an animation made in
    Blender."""
    if armature is not None:
        owners = [armature]
    else:
        owners = [_root(context.active_object), context.scene]
    for owner in owners:
        if owner is None:
            continue
        record = owner.get(RECORD) if owner is not context.scene else owner.get("rtm")
        if record is not None:
            return record.to_dict() if hasattr(record, "to_dict") else dict(record)
    return None


def _fcurves(owner) -> list:
    """The F-curves animating ``owner`` (its action's slot from Blender 4.4 on)."""
    ad = owner.animation_data
    if ad is None or ad.action is None:
        return []
    try:
        from bpy_extras.anim_utils import action_get_channelbag_for_slot
    except ImportError:  # Blender before 4.4: one F-curve list per action
        return list(ad.action.fcurves)
    bag = action_get_channelbag_for_slot(ad.action, ad.action_slot)
    return list(bag.fcurves) if bag is not None else []


#: Channels per transform property.
_CHANNELS = {"location": 3, "rotation_euler": 3, "scale": 3, "rotation_quaternion": 4,
             "rotation_axis_angle": 4}


def _partly_keyed(owners) -> list:
    """The transform properties (data paths) keyed on some of their channels only: Blender's
    glTF exporter (5.0), writing keys as they are (not sampled), fills the others with wrong
    values, so those are exported sampled."""
    keyed = {}
    for o in owners:
        for c in _fcurves(o):
            keyed.setdefault(c.data_path, set()).add(c.array_index)
    return [p for p, channels in keyed.items()
            if len(channels) < _CHANNELS.get(p.rsplit(".", 1)[-1], 0)]


class _SceneRecord:
    """While exporting, the scene's ``rtm`` custom property (the glTF scene's ``extras.rtm``,
    which the library's glTF → RTM reads for the bone order and displacement) is ``record``;
    the property is restored afterwards."""

    def __init__(self, scene, record: dict):
        self.scene, self.record = scene, record

    def __enter__(self):
        old = self.scene.get("rtm")
        self.saved = old.to_dict() if hasattr(old, "to_dict") else old
        self.scene["rtm"] = self.record
        return self

    def __exit__(self, *exc):
        if self.saved is None:
            del self.scene["rtm"]
        else:
            self.scene["rtm"] = self.saved
        return False


class _OnlySelected:
    """While exporting, only ``obj`` is selected (the selection is restored afterwards)."""

    def __init__(self, context, obj):
        self.layer, self.obj = context.view_layer, obj

    def __enter__(self):
        self.saved = [o for o in self.layer.objects if o.select_get()]
        for o in self.saved:
            o.select_set(False)
        self.obj.select_set(True)
        return self

    def __exit__(self, *exc):
        self.obj.select_set(False)
        for o in self.saved:
            o.select_set(True)
        return False


class _AtOrigin:
    """While exporting, the armature object sits at the world origin (its transform restored
    afterwards), so that its bones' matrices come out in the armature's own space, the model's,
    wherever the object stands in the scene. An armature object whose own transform is
    animated is left where its animation puts it (a note says that its motion is in the
    bones' matrices)."""

    def __init__(self, armature, notes: list):
        self.armature = armature
        self.animated = any(not c.data_path.startswith("pose.") for c in _fcurves(armature))
        if self.animated:
            notes.append(f"{armature.name}: the armature object's own animation is part of "
                         "every bone's matrix (the RTM's model space is the world's)")

    def __enter__(self):
        self.saved = self.armature.matrix_basis.copy()
        if not self.animated:
            self.armature.matrix_world = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
        return self

    def __exit__(self, *exc):
        self.armature.matrix_basis = self.saved
        return False


def export_rtm(context, filepath: str, *, displacement=None, frames: str = "AUTO",
               force: bool = False):
    """Writes the active armature's action (or, when the active object is no armature, the
    scene's animation) as an RTM at ``filepath``; returns (the :class:`retroanim.Conversion`,
    notes). ``displacement``: metres the unit travels per cycle in the RTM's axes (x right,
    y up, z forward), default the imported RTM's, else 0. ``frames``: see :data:`FRAMES`."""
    ra = retroanim_package()
    scene = context.scene
    active = context.active_object
    armature = active if active is not None and active.type == "ARMATURE" else None
    record = record_of(context, armature)
    notes = []
    if armature is not None:
        owners = [armature]
        exists = armature.data.bones.get
        own = [b.name for b in armature.data.bones if b.use_deform and not b.get("rtm_stretch")]
        if not own:
            raise ra.OptionError(f"{armature.name}: the armature has no deform bones")
    else:
        owners = [o for o in scene.objects if _fcurves(o)]
        exists = scene.objects.get
        own = None
    recorded = list((record or {}).get("bones", []))
    missing = [b for b in recorded if exists(b) is None]
    if recorded and missing:
        notes.append(f"the {len(recorded)} bones of the imported RTM are not used: "
                     f"{len(missing)} are gone ({', '.join(missing[:3])}…)")
    bones = recorded if recorded and not missing else own
    actions = {o.animation_data.action for o in owners
               if o.animation_data is not None and o.animation_data.action is not None}
    if not actions:
        what = armature.name if armature is not None else "the scene"
        raise ra.OptionError(f"{what}: no action to export (key the bones first)")
    start = min(a.frame_range[0] for a in actions)
    end = max(whole_frame_end(a.frame_range[1]) for a in actions)
    fps = scene.render.fps / scene.render.fps_base
    linear = all(k.interpolation == "LINEAR"
                 for o in owners for c in _fcurves(o) for k in c.keyframe_points)
    partly = _partly_keyed(owners)
    if frames == "KEYS" and partly:
        notes.append(f"one frame per scene frame instead of per key: {len(partly)} properties "
                     f"have keys on some channels only ({partly[0]}), which Blender's glTF "
                     "exporter misplaces when it writes keys as they are")
    keys = (frames == "KEYS" or (frames == "AUTO" and linear)) and not partly
    if displacement is None:
        displacement = (record or {}).get("displacement", (0.0, 0.0, 0.0))
    extras = {"displacement": [float(c) for c in displacement]}
    if bones:
        extras["bones"] = list(bones)
    if record is not None and not missing and "mdat" in record:
        extras["mdat"] = record["mdat"]
    exporter = dict(export_force_sampling=not keys, export_animation_mode="ACTIVE_ACTIONS",
                    export_optimize_animation_size=False)
    with _SceneRecord(scene, extras):
        if armature is not None:
            with _OnlySelected(context, armature), _AtOrigin(armature, notes):
                data = export_glb(context, selection_only=True, **exporter)
        else:
            data = export_glb(context, **exporter)
    duration = (end - start) / fps if end > start else 1.0 / fps
    result = ra.convert(data, "rtm", filepath, force=force, start=start / fps, duration=duration,
                        rest="origin" if record is not None and not missing else "bind")
    return result, notes + list(result.notes)


class EXPORT_OT_retroanim_rtm(bpy.types.Operator, ExportHelper):
    """Write the active armature's action (or the scene's animation) as an OFP/Arma RTM"""

    bl_idname = "export_scene.retroanim_rtm"
    bl_label = "Export OFP/Arma RTM animation"

    filename_ext = ".rtm"
    filter_glob: StringProperty(default="*.rtm", options={"HIDDEN"})
    frames: EnumProperty(name="Frames", items=FRAMES, default="AUTO")
    set_displacement: BoolProperty(
        name="Set displacement",
        description="Write the displacement below (else the imported RTM's, or 0 for an "
                    "animation made in Blender)")
    displacement: FloatVectorProperty(
        name="Displacement", size=3, precision=4, unit="LENGTH",
        description="Metres the unit travels per cycle, in the RTM's axes (x right, y up, "
                    "z forward)")
    replace: BoolProperty(name="Replace existing files", description=REPLACE_HELP)

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def invoke(self, context, event):
        if not self.set_displacement:
            active = context.active_object
            armature = active if active is not None and active.type == "ARMATURE" else None
            self.displacement = (record_of(context, armature) or {}).get(
                "displacement", (0.0, 0.0, 0.0))
        return super().invoke(context, event)

    def execute(self, context):
        def run():
            result, notes = export_rtm(
                context, self.filepath, frames=self.frames, force=self.replace,
                displacement=tuple(self.displacement) if self.set_displacement else None)
            self.report({"INFO"}, f"wrote {result.path}")
            return notes

        return run_reporting(self, run)
