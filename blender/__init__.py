"""retroanim for Blender: a thin layer over the `retroanim` Python package.

File → Import → "PlayStation TOD/HMD/TMD (retroanim)": the file is converted to glTF by
``retroanim.convert`` (the options mirror ``retroanim convert``: TMD for a TOD, TIMs, HMD
sequence, scale, axes) and handed to Blender's own glTF importer. The scene is set to 60 fps so
that every 1/60 s tick of the console lands on a Blender frame. A TMD imported without TIMs
is textured from the TIM files beside it ("Find textures beside the file", on by default), matched
by ``retroanim.assemble``: the TIMs whose VRAM place holds the texels its polygons sample; what was
matched (with confidence) and what was not is reported.

The same importer takes MIMe differences (a VDF, or an NDF): the base TMD they change (the
"TMD" option, else the one ``retroanim.assemble`` pairs with them among the files in their
folder, as ``scan --report`` does) imported with one shape key per MIMe key (``key 0``…), at
exactly the positions ``retroanim.play_mime`` gives at weight 4096: the library's TMD + VDF →
glTF morph targets (with the NDF that goes with the VDF) handed to Blender's glTF importer,
which makes shape keys of them.

File → Import → "OFP/Arma P3D with LOD frames (retroanim)": one LOD's mesh, its LOD frames as
shape keys switched over time. Each vertex remembers the P3D point it came from (the integer
attribute ``retroanim_point``, found by matching the vertex's path through the frames with the
LOD's point cache), so that the mesh can go back into the model.

File → Import → "OFP/Arma RTM animation (retroanim)": ``retroanim.convert(rtm, "glb")`` (one
joint per bone, nested by a ``model.cfg`` skeleton; with a P3D model, its LOD skinned to the
bones, as ``retroanim convert anim.rtm out.glb --p3d model.p3d``) handed to Blender's glTF
importer. File → Export → "OFP/Arma RTM animation (retroanim)": the active armature's action
(or the scene's animation) back through Blender's glTF exporter and the library's glTF → RTM
(see ``rtm.py``).

File → Export → "P3D LOD frames (retroanim)": the active mesh, evaluated at every frame of the
scene's range, becomes the LOD frames of a base P3D (via a PC2 point cache and
``retroanim.convert(..., base=...)``), written atomically.

File → Export → "PlayStation TOD/HMD/TMD (retroanim)": the scene (or the selected objects) goes
through Blender's own glTF exporter (:func:`export_glb`: custom properties as extras, cameras,
lights, shape keys as morph targets, one animation per clip) and ``retroanim.convert`` (the
library's glTF → console authoring). A scene imported from a retroanim export keeps its console
structure (TOD object IDs, HMD coordinates and sequence table) through its custom properties:
see docs/blender.md, "The round trip through Blender". The file's
extension picks the target: ``.tod`` writes the TOD with its TMD model and TIM textures beside it
(``x.tod`` → ``x.tmd``, ``x_0.tim``), ``.hmd`` one HMD holding model, images and animation,
``.tmd`` the model and its TIMs. Every file is written atomically; what the console format cannot
hold is reported as a warning per kind, with its count.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from .bridge import REPLACE_HELP, export_glb, import_glb, retroanim_package, run_reporting
# import_rtm and export_rtm are scripting API beside import_psx and export_psx.
from .rtm import EXPORT_OT_retroanim_rtm, IMPORT_OT_retroanim_rtm, export_rtm, import_rtm  # noqa: F401

#: The integer point attribute the P3D import writes and the P3D export reads.
POINT_ATTRIBUTE = "retroanim_point"

AXES = [
    ("default", "Default", "The target's usual axes (glTF +Y up, Object Builder's for P3D)"),
    ("raw", "Raw", "Coordinates exactly as stored"),
]


def _paths(text: str) -> list:
    return [p.strip() for p in text.split(";") if p.strip()]


def textures_beside(filepath: str):
    """The TIMs that texture the TMD at ``filepath``, found among the TIM files (``*.tim``) in
    its folder by ``retroanim.assemble`` (VRAM matching); returns (TIM models in the order the
    conversion takes them, notes): a ``paired-textures`` note per TIM used, with its
    confidence and alternatives, and an ``untextured-polygons`` note when some textured
    polygons have no TIM there."""
    ra = retroanim_package()
    folder = Path(filepath).resolve().parent
    tims = sorted(p for p in folder.iterdir()
                  if p.is_file() and p.suffix.lower() == ".tim")
    if not tims:
        return [], [ra.Note("untextured-polygons", f"no TIM files beside {Path(filepath).name}")]
    asm = ra.assemble([filepath, *tims])
    asset = asm.asset(filepath)
    if asset is None or asset.textured == 0:
        return [], []
    notes = []
    for t in asset.textures:
        alts = ", ".join(f"{Path(a.source.container).name} ({a.confidence:.2f})"
                         for a in t.alternatives)
        notes.append(ra.Note(
            "paired-textures",
            f"{t.polygons} textured polygons from {Path(t.source.container).name} "
            f"(confidence {t.confidence:.2f})" + (f"; alternatives: {alts}" if alts else "")))
    if asset.untextured:
        notes.append(ra.Note(
            "untextured-polygons",
            f"{asset.untextured} of {asset.textured} textured polygons: no TIM beside the file "
            "holds their texels"))
    return asm.tims_for(asset), notes


def mime_base(filepath: str, tmd: str = ""):
    """The base TMD of the VDF/NDF at ``filepath`` and the difference file of the other kind
    that goes with it, as paths: ``tmd`` when given, else the TMD ``retroanim.assemble`` pairs
    with the file among those in its folder (confidence 0.5 or more); returns (tmd, partner or
    None, notes). Raises :class:`retroanim.OptionError` saying why when no TMD is sure enough."""
    ra = retroanim_package()
    folder = Path(filepath).resolve().parent
    asm = ra.assemble([folder])
    asset = asm.asset(str(Path(filepath).resolve()))
    partner = None if asset is None or asset.partner is None else asset.partner.container
    if tmd:
        return tmd, partner, []
    if asset is None or asset.model is None:
        shown = [] if asset is None else [
            f"{Path(c.source.container).name} ({c.confidence:.2f})" for c in asset.alternatives]
        raise ra.OptionError(
            f"{Path(filepath).name}: no TMD beside it "
            + ("is sure enough to be its base (candidates: " + ", ".join(shown) + ")"
               if shown else "has every object and vertex its blocks change")
            + "; choose its base in the TMD option")
    base = asset.model.source.container
    notes = [ra.Note("paired-model",
                     f"base model {Path(base).name} (confidence {asset.model.confidence:.2f})")]
    if partner:
        notes.append(ra.Note("paired-differences", f"with {Path(partner).name}"))
    return base, partner, notes


def import_psx(context, filepath: str, *, tmd: str = "", tims: str = "", sequence: int = -1,
               scale: float = 0.0, axes: str = "default", smooth: bool = False,
               set_fps: bool = True, find_textures: bool = True):
    """Imports a TOD, HMD or TMD; returns (new objects, notes): the conversion's, and for a TMD
    textured from the TIMs beside it (``find_textures`` without ``tims``) what was matched."""
    ra = retroanim_package()
    if Path(filepath).suffix.lower() == ".rsd":
        # An RSD set (with its PLY, MAT, GRP and TIMs beside it) comes in through the library's
        # RSD → glTF conversion: groups as nodes, materials with their textures.
        data, notes = ra.read_rsd(filepath).convert("glb")
        objects = import_glb(context, data)
        return objects, [ra.Note(c, m) for c, m in notes]
    model = ra.read(filepath)
    if model.format not in ("tod", "hmd", "tmd", "pmd", "vdf", "ndf"):
        raise ra.OptionError(
            f"{filepath}: a {model.format} file, not a TOD, HMD, TMD, PMD, RSD, VDF or NDF")
    opts = {}
    found = []
    if model.format in ("vdf", "ndf"):
        # MIMe keys as shape keys on their base TMD's mesh (textured as a TMD is).
        base, partner, found = mime_base(filepath, tmd)
        opts["tmd"] = base
        if partner:
            opts["ndf" if model.format == "vdf" else "vdf"] = partner
        if tims:
            opts["tim"] = _paths(tims)
        elif find_textures:
            opts["tim"], more = textures_beside(base)
            found += more
    if axes != "default":
        opts["axes"] = axes
    if scale > 0:
        opts["scale"] = scale
    if model.format in ("vdf", "ndf"):
        pass
    elif tims:
        opts["tim"] = _paths(tims)
    elif find_textures and model.format in ("tmd", "pmd"):
        opts["tim"], found = textures_beside(filepath)
    if model.format == "tod":
        if tmd:
            opts["tmd"] = tmd
        if smooth:
            opts["smooth"] = True
    if model.format == "hmd" and sequence >= 0:
        opts["sequence"] = sequence
    result = ra.convert(model, "glb", **opts)
    if set_fps and model.format in ("tod", "hmd"):
        context.scene.render.fps = 60
        context.scene.render.fps_base = 1.0
    before = set(bpy.data.actions)
    objects = import_glb(context, result.data)
    ends = [a.frame_range[1] for a in bpy.data.actions if a not in before]
    if set_fps and ends:
        # The scene shows the whole animation (keys sit a float step before their frame).
        context.scene.frame_start, context.scene.frame_end = 0, round(max(ends))
    return objects, found + list(result.notes)


def _pc2_frames(data: bytes):
    """The frames of a PC2 file as lists of (x, y, z)."""
    points, _start, _rate, samples = struct.unpack_from("<12xiiffi", data, 0)[1:]
    floats = struct.unpack_from(f"<{points * samples * 3}f", data, 32)
    return [
        [tuple(floats[(s * points + p) * 3:(s * points + p) * 3 + 3]) for p in range(points)]
        for s in range(samples)
    ]


#: retroanim's P3D glTF (as Blender's importer places it) and its P3D point caches in Object
#: Builder's Blender axes differ by a half turn about the vertical axis (x and y negated); the
#: point mapping and the export undo it.
GLTF_TO_CACHE = (-1.0, -1.0, 1.0)


def _to_cache(co):
    return tuple(c * s for c, s in zip(co, GLTF_TO_CACHE))


#: How far (m) a vertex may lie from its point in any frame: float32 rounding through glTF.
MATCH_TOL = 1e-5


def import_p3d(context, filepath: str, *, lod: float = -1.0, fps: float = 0.0,
               duration: float = 0.0, axes: str = "default"):
    """Imports one LOD of a P3D with its LOD frames as shape keys; returns (objects, notes)."""
    ra = retroanim_package()
    model = ra.read(filepath)
    if model.format != "p3d":
        raise ra.OptionError(f"{filepath}: a {model.format} file, not a P3D")
    opts = {}
    if lod >= 0:
        opts["lod"] = lod
    if fps > 0:
        opts["fps"] = fps
    if duration > 0:
        opts["duration"] = duration
    if axes != "default":
        opts["axes"] = axes
    result = ra.convert(model, "glb", **opts)
    objects = import_glb(context, result.data)
    notes = list(result.notes)
    meshes = [o for o in objects if o.type == "MESH"]
    try:
        frames = _pc2_frames(ra.convert(model, "pc2", **opts).data)
    except ra.RetroanimError:
        frames = []  # a LOD without frames: nothing to map
    for obj in meshes:
        obj["retroanim_source"] = filepath
        if lod >= 0:
            obj["retroanim_lod"] = lod
        if frames and obj.data.shape_keys:
            _map_points(obj, frames, notes)
    return objects, notes


def _map_points(obj, frames, notes) -> None:
    """Finds each vertex's P3D point: the point whose positions through every LOD frame are
    the vertex's positions in the shape keys (points that agree in every frame are
    interchangeable for export)."""
    keys = [k for k in obj.data.shape_keys.key_blocks][1:]
    if len(keys) != len(frames):
        notes.append(f"{obj.name}: {len(keys)} shape keys for {len(frames)} LOD frames; "
                     "points not mapped, the mesh cannot be exported into the model")
        return
    import numpy as np

    paths = np.array([[c for f in frames for c in f[p]] for p in range(len(frames[0]))])
    verts = np.array([[c for k in keys for c in _to_cache(k.data[v.index].co)]
                      for v in obj.data.vertices]).reshape(len(obj.data.vertices), -1)
    attr = obj.data.attributes.new(POINT_ATTRIBUTE, "INT", "POINT")
    missing = 0
    for lo in range(0, len(verts), 256):
        # The nearest point path to each vertex path (largest coordinate difference).
        d = np.abs(verts[lo:lo + 256, None, :] - paths[None, :, :]).max(axis=2)
        best = d.argmin(axis=1)
        for i, (p, dist) in enumerate(zip(best, d[np.arange(len(best)), best])):
            ok = dist <= MATCH_TOL
            missing += not ok
            attr.data[lo + i].value = int(p) if ok else -1
    if missing:
        notes.append(f"{obj.name}: {missing} vertices match no P3D point")


def _pc2_bytes(frames) -> bytes:
    points = len(frames[0])
    head = struct.pack("<12siiffi", b"POINTCACHE2\0", 1, points, 0.0, 1.0, len(frames))
    body = struct.pack(f"<{points * len(frames) * 3}f", *(c for f in frames for xyz in f for c in xyz))
    return head + body


def export_p3d_frames(context, obj, filepath: str, base: str, *, lod: float = -1.0,
                      frame_start: int = None, frame_end: int = None, force: bool = False):
    """Writes `base` with the LOD frames of `obj` evaluated over the frame range; returns notes.

    Every P3D point takes the position of a vertex mapped to it (``retroanim_point``); a point
    no vertex maps to keeps its place in the base model's first LOD frame (and a note says how
    many).
    """
    ra = retroanim_package()
    scene = context.scene
    start = scene.frame_start if frame_start is None else frame_start
    end = scene.frame_end if frame_end is None else frame_end
    base_model = ra.read(base)
    opts = {} if lod < 0 else {"lod": lod}
    base_frames = _pc2_frames(ra.convert(base_model, "pc2", **opts).data)
    points = len(base_frames[0])
    attr = obj.data.attributes.get(POINT_ATTRIBUTE)
    if attr is None:
        raise ra.OptionError(f"{obj.name}: no {POINT_ATTRIBUTE} attribute (import the P3D with "
                             "retroanim first)")
    mapping = [a.value for a in attr.data]
    frames = []
    depsgraph = context.evaluated_depsgraph_get()
    for f in range(start, end + 1):
        scene.frame_set(f)
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        pos = list(base_frames[0])
        for v, p in zip(mesh.vertices, mapping):
            if 0 <= p < points:
                pos[p] = _to_cache(v.co)
        evaluated.to_mesh_clear()
        frames.append(pos)
    unmapped = points - len({p for p in mapping if 0 <= p < points})
    fps = scene.render.fps / scene.render.fps_base
    cache = ra.read(_pc2_bytes(frames))
    result = ra.convert(cache, "p3d", filepath, base=base_model, fps=fps, force=force, **opts)
    notes = [n.message for n in result.notes]
    if unmapped:
        notes.append(f"{unmapped} P3D points have no vertex: kept at the base's first frame")
    return notes


#: What File → Export → PlayStation writes, by the chosen file's extension.
PSX_TARGETS = {".tod": "tod", ".hmd": "hmd", ".tmd": "tmd", ".rsd": "rsd"}


def _glb_node_names(data: bytes) -> list:
    """The node names of a GLB, in node order (the order retroanim's authoring numbers TOD
    objects and HMD coordinates in)."""
    length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + length])
    return [n.get("name", "") for n in doc.get("nodes", [])]


def export_psx(context, filepath: str, *, selection_only: bool = False, scale: float = 0.0,
               axes: str = "default", fps: float = 0.0, force: bool = False):
    """Writes the scene (or the selected objects) as a TOD (+ TMD + TIMs), HMD or TMD, chosen by
    ``filepath``'s extension; returns (the :class:`retroanim.Conversion`, the glTF node names in
    order: for a scene made in Blender, TOD object k is node k - 1 and HMD coordinate k is
    node k; a scene imported from a retroanim export keeps its own numbering, read from the
    custom properties)."""
    ra = retroanim_package()
    target = PSX_TARGETS.get(Path(filepath).suffix.lower())
    if target is None:
        raise ra.OptionError(f"{filepath}: name a .tod, .hmd, .tmd or .rsd file")
    if fps > 0 and target != "hmd":
        raise ra.OptionError("the frame rate is for HMD (a TOD runs in 1/60 s ticks)")
    data = export_glb(context, selection_only=selection_only)
    opts = {}
    if scale > 0:
        opts["scale"] = scale
    if axes != "default":
        opts["axes"] = axes
    if fps > 0:
        opts["fps"] = fps
    return ra.convert(data, target, filepath, force=force, **opts), _glb_node_names(data)


class IMPORT_OT_retroanim_psx(bpy.types.Operator, ImportHelper):
    """Import a PlayStation TOD animation, HMD or TMD model, or MIMe VDF/NDF as shape keys (via retroanim)"""

    bl_idname = "import_scene.retroanim_psx"
    bl_label = "Import PlayStation TOD/HMD/TMD"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".tod"
    filter_glob: StringProperty(
        default="*.tod;*.TOD;*.hmd;*.HMD;*.tmd;*.TMD;*.pmd;*.PMD;*.rsd;*.RSD;*.vdf;*.VDF;*.ndf;*.NDF",
        options={"HIDDEN"})
    tmd: StringProperty(name="TMD", subtype="FILE_PATH",
                        description="The TMD model a TOD drives, or the base a VDF/NDF changes "
                                    "(empty: the one paired with it in its folder)")
    tims: StringProperty(name="TIMs", description="TIM textures, separated by ';'")
    sequence: IntProperty(name="HMD sequence", default=-1, min=-1,
                          description="Only this HMD sequence (-1: every sequence pointer's own)")
    scale: FloatProperty(name="Scale", default=0.0, min=0.0, precision=6,
                         description="Metres per PlayStation unit (0: retroanim's 1/4096)")
    axes: EnumProperty(name="Axes", items=AXES, default="default")
    smooth: BoolProperty(name="Smooth", description="TOD: linear keys instead of steps")
    set_fps: BoolProperty(name="Scene at 60 fps", default=True,
                          description="One Blender frame per 1/60 s console tick")
    find_textures: BoolProperty(
        name="Find textures beside the file", default=True,
        description="TMD without TIMs given: texture it from the TIM files in its folder "
                    "whose VRAM place holds the texels its polygons sample")

    def execute(self, context):
        return run_reporting(self, lambda: import_psx(
            context, self.filepath, tmd=self.tmd, tims=self.tims, sequence=self.sequence,
            scale=self.scale, axes=self.axes, smooth=self.smooth, set_fps=self.set_fps,
            find_textures=self.find_textures)[1])


class IMPORT_OT_retroanim_p3d(bpy.types.Operator, ImportHelper):
    """Import an Operation Flashpoint / Arma P3D LOD with its LOD frames (via retroanim)"""

    bl_idname = "import_scene.retroanim_p3d"
    bl_label = "Import OFP/Arma P3D (with LOD frames)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".p3d"
    filter_glob: StringProperty(default="*.p3d;*.P3D", options={"HIDDEN"})
    lod: FloatProperty(name="LOD", default=-1.0,
                       description="LOD resolution (-1: the first LOD with frames, else the first)")
    fps: FloatProperty(name="FPS", default=0.0, min=0.0, description="0: retroanim's default")
    duration: FloatProperty(name="Phase duration", default=0.0, min=0.0,
                            description="Seconds the LOD frame phase 0..1 lasts (0: default)")
    axes: EnumProperty(name="Axes", items=AXES, default="default")

    def execute(self, context):
        return run_reporting(self, lambda: import_p3d(
            context, self.filepath, lod=self.lod, fps=self.fps, duration=self.duration,
            axes=self.axes)[1])


class EXPORT_OT_retroanim_p3d_frames(bpy.types.Operator, ExportHelper):
    """Write the active mesh's animation over the scene's frame range as LOD frames of a P3D"""

    bl_idname = "export_scene.retroanim_p3d_frames"
    bl_label = "Export P3D LOD frames"

    filename_ext = ".p3d"
    filter_glob: StringProperty(default="*.p3d", options={"HIDDEN"})
    base: StringProperty(name="Base P3D", subtype="FILE_PATH",
                         description="The model whose LOD frames are replaced (default: the "
                                     "file the mesh was imported from)")
    lod: FloatProperty(name="LOD", default=-1.0, description="LOD resolution (-1: default)")
    replace: BoolProperty(name="Replace existing files", description=REPLACE_HELP)

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "MESH"

    def execute(self, context):
        ra = retroanim_package()
        obj = context.active_object
        base = self.base or obj.get("retroanim_source", "")
        if not base:
            self.report({"ERROR"}, "name the base P3D")
            return {"CANCELLED"}
        lod = self.lod if self.lod >= 0 else obj.get("retroanim_lod", -1.0)
        try:
            notes = export_p3d_frames(context, obj, self.filepath, base, lod=lod,
                                      force=self.replace)
        except (ra.RetroanimError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for n in notes:
            self.report({"WARNING"}, n)
        return {"FINISHED"}


class EXPORT_OT_retroanim_psx(bpy.types.Operator, ExportHelper):
    """Write the scene for the PlayStation: TOD (+ TMD, TIMs), HMD or TMD, by the extension"""

    bl_idname = "export_scene.retroanim_psx"
    bl_label = "Export PlayStation TOD/HMD/TMD"

    filename_ext = ".tod"
    check_extension = False
    filter_glob: StringProperty(default="*.tod;*.hmd;*.tmd;*.rsd", options={"HIDDEN"})
    selection_only: BoolProperty(name="Selected only", description="Only the selected objects")
    scale: FloatProperty(name="Scale", default=0.0, min=0.0, precision=6,
                         description="Metres per PlayStation unit (0: retroanim's 1/4096)")
    axes: EnumProperty(name="Axes", items=AXES, default="default")
    fps: FloatProperty(name="HMD frame rate", default=0.0, min=0.0,
                       description="HMD frames per second (0: retroanim's 60)")
    replace: BoolProperty(name="Replace existing files", description=REPLACE_HELP)

    def execute(self, context):
        ra = retroanim_package()
        try:
            result, _ = export_psx(context, self.filepath, selection_only=self.selection_only,
                                   scale=self.scale, axes=self.axes, fps=self.fps,
                                   force=self.replace)
        except (ra.RetroanimError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for n in result.notes:
            self.report({"WARNING"}, str(n))
        written = [result.path] + [e.path for e in result.extra]
        self.report({"INFO"}, "wrote " + ", ".join(str(p) for p in written))
        return {"FINISHED"}


def _menu_import(self, context):
    self.layout.operator(IMPORT_OT_retroanim_psx.bl_idname, text="PlayStation TOD/HMD/TMD")
    self.layout.operator(IMPORT_OT_retroanim_p3d.bl_idname, text="OFP/Arma P3D (with LOD frames)")
    self.layout.operator(IMPORT_OT_retroanim_rtm.bl_idname, text="OFP/Arma RTM animation")


def _menu_export(self, context):
    self.layout.operator(EXPORT_OT_retroanim_psx.bl_idname, text="PlayStation TOD/HMD/TMD")
    self.layout.operator(EXPORT_OT_retroanim_p3d_frames.bl_idname, text="P3D LOD frames")
    self.layout.operator(EXPORT_OT_retroanim_rtm.bl_idname, text="OFP/Arma RTM animation")


CLASSES = (IMPORT_OT_retroanim_psx, IMPORT_OT_retroanim_p3d, IMPORT_OT_retroanim_rtm,
           EXPORT_OT_retroanim_psx, EXPORT_OT_retroanim_p3d_frames, EXPORT_OT_retroanim_rtm)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
