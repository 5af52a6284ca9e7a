"""The round trip through Blender, headless (Blender as the `bpy` module): each case's console
file is converted to GLB by retroanim, imported into Blender (Blender's own glTF importer at
60 fps, or the add-on's import), exported unedited with the add-on's PlayStation export, then
one location key of one object (or bone) is moved and the scene exported again. The checks
(structure, poses) are made by python/tests/test_blender_roundtrip.py on the files written here.

Usage: python3 blender/tests/check_roundtrip.py OUT_DIR CASES_JSON
CASES_JSON: a list of {"name", "source", "tmd" (or null), "import": "gltf" | "addon",
"move": {"format": "tod" | "hmd", "id": object ID / coordinate, "frame": F, "metres": D} (or
null)}. Writes OUT_DIR/NAME_same.EXT and OUT_DIR/NAME_moved.EXT (EXT the source's: .tod with
its .tmd beside it, or .hmd) and OUT_DIR/results.json: per case the files, and for the moved key
its frame, the frames of the keys before and after it, and what was moved. Prints one line per
step; exits 1 on the first failure.
"""

import ast
import json
import sys
from pathlib import Path

import bpy

import retroanim
from check_addon import load_addon  # this folder is the script's: first on sys.path


def fail(msg):
    print(f"check_roundtrip: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def tag(owner, fmt):
    """The `retroanim` member `fmt` of a custom-property owner (object, bone): a group, or the
    Python text Blender's importer stores when a value cannot be a group."""
    value = owner.get("retroanim") if owner is not None else None
    if value is None:
        return {}
    value = ast.literal_eval(value) if isinstance(value, str) else value.to_dict()
    return value.get(fmt, {}) if isinstance(value, dict) else {}


def channelbag(action, slot):
    from bpy_extras.anim_utils import action_get_channelbag_for_slot
    return action_get_channelbag_for_slot(action, slot)


def location_curve(fmt, ident):
    """The location X F-curve of the object (TOD object ID / HMD coordinate `ident`) or bone,
    and a description of it."""
    key = "object" if fmt == "tod" else "coordinate"
    for obj in bpy.context.scene.objects:
        ad = obj.animation_data
        if ad is None or ad.action is None:
            continue
        bag = channelbag(ad.action, ad.action_slot)
        if tag(obj, fmt).get(key) == ident:
            curve = bag.fcurves.find("location", index=0)
            if curve is not None:
                return curve, f"object {obj.name!r}"
        if obj.type == "ARMATURE":
            for bone in obj.data.bones:
                if tag(bone, fmt).get(key) == ident:
                    path = f'pose.bones["{bone.name}"].location'
                    curve = bag.fcurves.find(path, index=0)
                    if curve is not None:
                        return curve, f"bone {bone.name!r} of {obj.name!r}"
    fail(f"no location key of {fmt} {key} {ident}")


def move_key(move):
    """Moves the location X key of `move` at its frame by `metres`; returns (the key's frame,
    the previous key's, the next key's, what was moved)."""
    curve, what = location_curve(move["format"], move["id"])
    points = curve.keyframe_points
    i = min(range(len(points)), key=lambda k: abs(points[k].co.x - move["frame"]))
    p = points[i]
    if abs(p.co.x - move["frame"]) > 0.01 or i == 0 or i + 1 == len(points):
        fail(f"{what}: no key inside the clip at frame {move['frame']}")
    for v in (p.co, p.handle_left, p.handle_right):
        v.y += move["metres"]
    curve.update()
    return round(p.co.x), round(points[i - 1].co.x), round(points[i + 1].co.x), what


def import_case(addon, case, out):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if case["import"] == "addon":
        result = bpy.ops.import_scene.retroanim_psx(filepath=case["source"],
                                                   tmd=case.get("tmd") or "")
        if result != {"FINISHED"}:
            fail(f"{case['name']}: the add-on's import gave {result}")
        return
    # Blender's own importer, the scene at 60 fps first (one frame per console tick).
    opts = {"tmd": case["tmd"]} if case.get("tmd") else {}
    glb = out / f"{case['name']}.glb"
    glb.write_bytes(retroanim.convert(retroanim.read(case["source"]), "glb", **opts).data)
    bpy.context.scene.render.fps, bpy.context.scene.render.fps_base = 60, 1.0
    if bpy.ops.import_scene.gltf(filepath=str(glb)) != {"FINISHED"}:
        fail(f"{case['name']}: Blender's glTF import failed")


def export(addon, path):
    conv, _ = addon.export_psx(bpy.context, str(path))
    if conv.path is None or not Path(conv.path).exists():
        fail(f"nothing written for {path.name}")
    return [str(conv.path)] + [str(e.path) for e in conv.extra]


if __name__ == "__main__":
    out = Path(sys.argv[1])
    cases = json.loads(Path(sys.argv[2]).read_text())
    addon = load_addon()
    results = {}
    for case in cases:
        ext = Path(case["source"]).suffix.lower()
        import_case(addon, case, out)
        entry = {"same": export(addon, out / f"{case['name']}_same{ext}")}
        print(f"check_roundtrip: {case['name']}: imported ({case['import']}) and exported unedited")
        move = case.get("move")
        if move:
            frame, before, after, what = move_key(move)
            entry["moved"] = export(addon, out / f"{case['name']}_moved{ext}")
            entry["key"] = {"frame": frame, "previous": before, "next": after, "what": what}
            print(f"check_roundtrip: {case['name']}: {what}'s location key at frame {frame} "
                  f"moved {move['metres']} m (neighbouring keys at {before} and {after})")
        results[case["name"]] = entry
    (out / "results.json").write_text(json.dumps(results, indent=1))
    print("check_roundtrip: all cases written")
