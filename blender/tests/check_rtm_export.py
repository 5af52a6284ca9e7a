"""The add-on's RTM export, headless (Blender as the `bpy` module, the add-on loaded from the
repository, the `retroanim` Python package installed).

Usage: python3 blender/tests/check_rtm_export.py OUT_DIR P3D RTM [RTM ...]
(run by python/tests/test_blender_rtm.py).

1. Round trip: every RTM is imported with the add-on (File > Import > OFP/Arma RTM: bones
   as empties) and written back with File > Export > OFP/Arma RTM from the scene's animation;
   the first is also imported skinned to P3D (an armature) and written back from the active
   armature. Both files are read with `retroanim.play_rtm` and compared: the same bone names
   in the same order, the same frame count, every phase within PHASE_TOL, every matrix
   entry within TOL (the largest difference is printed).
2. Made in Blender: a two-bone armature (the object moved and turned in the scene, which the
   RTM must not see), keyed by hand, written with one frame per key and with one frame per
   scene frame, compared with the matrices the keys give, worked out here from the bones'
   rest positions: phase = (frame - first) / (last - first); a bone's matrix is its pose
   times its rest inverse in the armature's space, in the RTM's axes (x right, y up,
   z forward: Blender's (-x, z, -y)); the displacement set in the export is in the file.
3. The output rule: an existing file is not replaced without "Replace existing files" (the
   export is cancelled and the file keeps its bytes), and is with it.

Exits 1 on the first failure.
"""

import math
import sys
from pathlib import Path

import bpy
from mathutils import Matrix

import retroanim
from check_addon import load_addon  # this folder is the script's: first on sys.path

TOL = 1e-4
PHASE_TOL = 1e-6
# Blender's (x, y, z) in the RTM's axes: (-x, z, -y).
A = Matrix(((-1, 0, 0, 0), (0, 0, 1, 0), (0, -1, 0, 0), (0, 0, 0, 1)))


def fail(msg):
    print(f"check_rtm_export: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def frames_of(path):
    return retroanim.play_rtm(str(path))["frames"]


def compare(label, got_path, want_frames):
    """Compares the RTM at ``got_path`` with ``want_frames`` (``play_rtm``'s frames, or
    (phase, {bone: 12 numbers}) pairs in bone order); returns the largest matrix difference."""
    got = frames_of(got_path)
    if len(got) != len(want_frames):
        fail(f"{label}: {len(got)} frames, expected {len(want_frames)}")
    worst = 0.0
    for g, w in zip(got, want_frames):
        if isinstance(w, dict):
            w = (w["phase"], {b["name"]: b["matrix"] for b in w["bones"]})
        phase, bones = w
        names = [b["name"] for b in g["bones"]]
        if names != list(bones):
            fail(f"{label}: frame {g['frame']} bones {names[:5]}..., expected {list(bones)[:5]}...")
        if abs(g["phase"] - phase) > PHASE_TOL:
            fail(f"{label}: frame {g['frame']} at phase {g['phase']}, expected {phase}")
        for b in g["bones"]:
            d = max(abs(x - y) for x, y in zip(b["matrix"], bones[b["name"]]))
            worst = max(worst, d)
            if d > TOL:
                fail(f"{label}: frame {g['frame']} bone {b['name']!r}: an entry differs by "
                     f"{d:.3g} (> {TOL})\n got  {b['matrix']}\n want {bones[b['name']]}")
    return worst


def round_trip(rtm, out, p3d=""):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if bpy.ops.import_scene.retroanim_rtm(filepath=str(rtm), p3d=p3d) != {"FINISHED"}:
        fail(f"the add-on's import of {rtm} did not finish")
    active = bpy.context.view_layer.objects.active
    kind = active.type if active is not None else "no active object"
    if (kind == "ARMATURE") != bool(p3d):
        fail(f"{rtm}: the import left {kind} active")
    if bpy.ops.export_scene.retroanim_rtm(filepath=str(out)) != {"FINISHED"}:
        fail(f"the add-on's RTM export of {rtm} did not finish")
    want = frames_of(rtm)
    worst = compare(f"{Path(rtm).name} ({kind})", out, want)
    print(f"check_rtm_export: {Path(rtm).name} imported ({'armature' if p3d else 'empties'}) "
          f"and exported: {len(want)} frames, {len(want[0]['bones'])} bones, largest "
          f"difference {worst:.3g}")


def rtm_numbers(m):
    """A Blender-space 4x4 as the RTM's 12 numbers (columns aside, up, direction, position)."""
    r = A @ m @ A.inverted()
    return [r[i][j] for j in range(4) for i in range(3)]


def handmade_armature(every_channel):
    """Bone ``upper`` from (0, 0, 1) up to (0, 0, 2), bone ``lower`` (its child) from (0, 0, 2)
    towards +y; both turn about their own length (the Euler y channel), ``lower`` also slides
    along it (location y). Keys on every channel of each property, or (not
    ``every_channel``) on the y channels only. Returns the armature object, moved and turned
    in the scene."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    arm = bpy.data.armatures.new("Rig")
    obj = bpy.data.objects.new("Rig", arm)
    scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    upper = arm.edit_bones.new("upper")
    upper.head, upper.tail = (0, 0, 1), (0, 0, 2)
    lower = arm.edit_bones.new("lower")
    lower.head, lower.tail, lower.parent = (0, 0, 2), (0, 1, 2), upper
    bpy.ops.object.mode_set(mode="POSE")
    keys = {"upper": [(1, 0.0), (11, 90.0), (21, 30.0)], "lower": [(1, 0.0), (21, 60.0)]}
    # Bezier keys (Blender's default).
    for name, ks in keys.items():
        pb = obj.pose.bones[name]
        pb.rotation_mode = "XYZ"
        for frame, degrees in ks:
            pb.rotation_euler = (0, math.radians(degrees), 0)
            pb.keyframe_insert("rotation_euler", frame=frame, index=-1 if every_channel else 1)
    pb = obj.pose.bones["lower"]
    for frame, y in ((1, 0.0), (21, 0.5)):
        pb.location = (0, y, 0)
        pb.keyframe_insert("location", frame=frame, index=-1 if every_channel else 1)
    bpy.ops.object.mode_set(mode="OBJECT")
    # Where the object stands in the scene is no part of the animation.
    obj.location = (2.0, -1.0, 0.5)
    obj.rotation_euler = (0.0, 0.0, math.radians(30))
    return obj


def expected(obj, frames):
    """The RTM frames the keys give at ``frames``: (phase, {bone: numbers}); the angles and the
    slide are the F-curves' values there (Blender's interpolation), the matrices worked out
    from the rest positions above."""
    from bpy_extras.anim_utils import action_get_channelbag_for_slot
    ad = obj.animation_data
    bag = action_get_channelbag_for_slot(ad.action, ad.action_slot)
    curves = {(c.data_path, c.array_index): c for c in bag.fcurves}

    def value(bone, prop, frame):
        # Both turns and the slide are on the y channel (index 1).
        return curves[(f'pose.bones["{bone}"].{prop}', 1)].evaluate(frame)

    first, last = frames[0], frames[-1]
    out = []
    for f in frames:
        theta = value("upper", "rotation_euler", f)
        phi = value("lower", "rotation_euler", f)
        slide = value("lower", "location", f)
        # upper turns about its length (+z) through its head (0, 0, 1).
        upper = (Matrix.Translation((0, 0, 1)) @ Matrix.Rotation(theta, 4, "Z")
                 @ Matrix.Translation((0, 0, -1)))
        # lower (rest orientation: the armature's) slides along and turns about +y at (0, 0, 2).
        lower = upper @ (Matrix.Translation((0, 0, 2)) @ Matrix.Translation((0, slide, 0))
                         @ Matrix.Rotation(phi, 4, "Y") @ Matrix.Translation((0, 0, -2)))
        out.append(((f - first) / (last - first),
                    {"upper": rtm_numbers(upper), "lower": rtm_numbers(lower)}))
    return out


def check_handmade(out_dir):
    obj = handmade_armature(every_channel=True)
    placed = obj.matrix_basis.copy()
    keyed = Path(out_dir) / "handmade_keys.rtm"
    every = Path(out_dir) / "handmade_every.rtm"
    # One frame per key (asked for: the keys are Bezier).
    if bpy.ops.export_scene.retroanim_rtm(filepath=str(keyed), frames="KEYS") != {"FINISHED"}:
        fail("the hand-made armature's export (one frame per key) did not finish")
    worst = compare("hand-made, keys", keyed, expected(obj, [1, 11, 21]))
    # Auto: Bezier keys are sampled at every frame.
    if bpy.ops.export_scene.retroanim_rtm(
            filepath=str(every), set_displacement=True, displacement=(0.0, 0.0, 1.25)) \
            != {"FINISHED"}:
        fail("the hand-made armature's export (every frame) did not finish")
    worst = max(worst, compare("hand-made, every frame", every, expected(obj, list(range(1, 22)))))
    disp = retroanim.play_rtm(str(every))["displacement"]
    if max(abs(a - b) for a, b in zip(disp, (0.0, 0.0, 1.25))) > 1e-7:
        fail(f"hand-made: displacement {disp}, set (0, 0, 1.25)")
    if retroanim.play_rtm(str(keyed))["displacement"] != [0.0, 0.0, 0.0]:
        fail("hand-made: an animation made in Blender should have displacement 0 by default")
    if obj.matrix_basis != placed:
        fail("the export left the armature object moved")
    # Keys on the y channels only, asked for one frame per key: exported sampled instead (the
    # glTF exporter misplaces the other channels when it writes keys as they are).
    obj = handmade_armature(every_channel=False)
    partly = Path(out_dir) / "handmade_partly.rtm"
    if bpy.ops.export_scene.retroanim_rtm(filepath=str(partly), frames="KEYS") != {"FINISHED"}:
        fail("the partly keyed armature's export did not finish")
    worst = max(worst, compare("hand-made, y channels keyed", partly,
                               expected(obj, list(range(1, 22)))))
    print(f"check_rtm_export: hand-made armature (2 bones, keys at frames 1, 11, 21): 3 frames "
          f"(one per key), 21 (every frame; and keyed on some channels only), as the keys give "
          f"them, largest difference {worst:.3g}")
    obj = handmade_armature(every_channel=True)
    return every


def check_output_rule(path):
    """``path``: the hand-made armature's every-frame export, made again here."""
    same = dict(set_displacement=True, displacement=(0.0, 0.0, 1.25))
    before = path.read_bytes()
    other = Path(str(path) + ".other.rtm")
    other.write_bytes(b"not an RTM")
    try:
        # A file the export would replace: refused without "Replace existing files".
        result = bpy.ops.export_scene.retroanim_rtm(filepath=str(other), **same)
    except RuntimeError as e:  # an operator reporting an error raises in background mode
        result = {"CANCELLED"}
        print(f"check_rtm_export: refused as expected: {str(e).strip().splitlines()[-1]}")
    if result != {"CANCELLED"} or other.read_bytes() != b"not an RTM":
        fail(f"the export replaced an existing file without 'Replace existing files' ({result})")
    if bpy.ops.export_scene.retroanim_rtm(filepath=str(other), replace=True, **same) \
            != {"FINISHED"}:
        fail("the export with 'Replace existing files' did not finish")
    if other.read_bytes() != before:
        fail("the replaced file does not hold the export")
    print("check_rtm_export: an existing file is replaced only with 'Replace existing files'")


def main():
    if len(sys.argv) < 4:
        fail("usage: check_rtm_export.py OUT_DIR P3D RTM [RTM ...]")
    out_dir, p3d, rtms = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    load_addon()
    for k, rtm in enumerate(rtms):
        round_trip(rtm, out_dir / f"rtm{k}.rtm")
    round_trip(rtms[0], out_dir / "skinned.rtm", p3d=p3d)
    every = check_handmade(out_dir)
    check_output_rule(every)


main()
