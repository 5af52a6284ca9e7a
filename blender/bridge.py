"""What the add-on's importers and exporters share: the ``retroanim`` package, Blender's own glTF
importer and exporter as the bridge to it, and how an operator reports the library's notes and
errors."""

from __future__ import annotations

import os
import tempfile

import bpy

#: The export operators' "Replace existing files" box: the library's output rule (as the CLI's
#: --force); without it an existing file (the TMD or TIMs beside a TOD too) is an error.
REPLACE_HELP = ("Replace existing files: the file chosen and those written beside it (a TOD's "
                "TMD and TIMs). Never a file the export reads")


def retroanim_package():
    """The ``retroanim`` Python package (an error naming how to install it when missing)."""
    try:
        import retroanim
    except ImportError as e:  # pragma: no cover - shown in Blender's UI
        raise RuntimeError(
            "the retroanim Python package is not installed in Blender's Python "
            "(pip install ./python, or install the add-on zip built by blender/build.py)"
        ) from e
    return retroanim


def import_glb(context, data: bytes, **importer) -> list:
    """Imports glTF bytes through Blender's own importer (with ``importer``'s options); returns
    the new objects."""
    before = set(context.scene.objects)
    fd, path = tempfile.mkstemp(suffix=".glb")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        bpy.ops.import_scene.gltf(filepath=path, **importer)
    finally:
        os.unlink(path)
    return [o for o in context.scene.objects if o not in before]


def _animation_mode(context) -> str:
    """``ACTIONS`` (one glTF animation per action) when the scene holds several clips: actions
    on NLA tracks (Blender's glTF importer stashes every glTF animation there, one action for
    all the objects it moves) besides the active ones; else ``ACTIVE_ACTIONS`` (every object's
    active action in one animation: a scene keyed object by object)."""
    active, stashed = set(), set()
    for obj in context.scene.objects:
        for owner in (obj, getattr(obj.data, "shape_keys", None)):
            ad = getattr(owner, "animation_data", None)
            if ad is None:
                continue
            if ad.action is not None:
                active.add(ad.action.name)
            for track in ad.nla_tracks:
                stashed.update(s.action.name for s in track.strips if s.action is not None)
    return "ACTIONS" if len(active | stashed) > 1 and stashed - active else "ACTIVE_ACTIONS"


def whole_frame_end(end: float) -> float:
    """An action's range end as the glTF export takes it (:class:`_WholeFrameRanges`): the whole
    frame just above when the end lies within 1/1000 frame below it."""
    whole = round(end)
    return whole if 0 < whole - end < 1e-3 else end


class _WholeFrameRanges:
    """Blender's glTF importer puts a key at ``time × fps`` in float32, often a float step
    before its frame, and its exporter ends an action at the whole frame at or below its last
    key: the last frame would be lost. While exporting, an action whose range ends within
    1/1000 frame below a whole frame gets that frame as its manual range end (restored
    afterwards; no key moves)."""

    def __enter__(self):
        self.saved = []
        for a in bpy.data.actions:
            start, end = a.frame_range
            whole = whole_frame_end(end)
            if whole != end:
                self.saved.append((a, a.use_frame_range, a.frame_start, a.frame_end))
                a.use_frame_range = True
                a.frame_start, a.frame_end = start, whole
        return self

    def __exit__(self, *exc):
        for a, used, start, end in self.saved:
            a.frame_start, a.frame_end = start, end
            a.use_frame_range = used
        return False


def export_glb(context, *, selection_only: bool = False, **exporter) -> bytes:
    """The scene (or the selected objects) through Blender's own glTF exporter, as the PlayStation
    export hands it to the library: custom properties as extras (so a scene imported from a
    retroanim export keeps its console structure), cameras and lights, shape keys as morph
    targets, every action over its own keys (not the scene's frame range), one animation per
    clip (:func:`_animation_mode`). ``exporter`` overrides any of these exporter options."""
    options = dict(
        export_format="GLB", use_selection=selection_only, export_animations=True,
        export_morph=True, export_yup=True, export_apply=False, export_extras=True,
        export_cameras=True, export_lights=True, export_frame_range=False,
        export_animation_mode=_animation_mode(context))
    options.update(exporter)
    fd, tmp = tempfile.mkstemp(suffix=".glb")
    os.close(fd)
    try:
        with _WholeFrameRanges():
            bpy.ops.export_scene.gltf(filepath=tmp, **options)
        with open(tmp, "rb") as f:
            return f.read()
    finally:
        os.unlink(tmp)


def run_reporting(op, action):
    """Runs ``action`` (returning its notes) for operator ``op``: a library or file error is
    reported as an error and cancels; each note is a warning (texture pairings: info)."""
    ra = retroanim_package()
    try:
        notes = action()
    except (ra.RetroanimError, OSError) as e:
        op.report({"ERROR"}, str(e))
        return {"CANCELLED"}
    for n in notes:
        level = "INFO" if getattr(n, "code", "") == "paired-textures" else "WARNING"
        op.report({level}, str(n))
    return {"FINISHED"}
