"""RTM exports in Blender, headless (Blender as the `bpy` module): each glTF that
`retroanim convert anim.rtm out.gltf [--p3d model.p3d]` wrote is imported with Blender's own
glTF importer, and every bone's world matrix at every frame of the RTM is compared with what
`retroanim play anim.rtm --json` says there (the RTM's matrices, x negated into glTF's axes).

Usage: python3 blender/tests/check_rtm.py GLTF PLAY.jsonl [GLTF PLAY.jsonl ...]
       [--addon RTM P3D GLTF PLAY.jsonl]
(run by python/tests/test_blender_rtm.py). PLAY.jsonl is `play --json`'s output: one line per
frame with its phase and every bone's 12 numbers. The glTF's times are phase x 1 s (the
export's default duration); the scene runs at 60 fps and each frame is set with its subframe.

With --addon, the add-on's own RTM import (File > Import > OFP/Arma RTM, which needs the
`retroanim` Python package) reads RTM skinned to P3D, and its poses are compared the same way
(GLTF, the CLI's export with the same options, gives the glTF rest matrices).

Bones: the importer makes joints (the skinned export) armature bones and turns them, so a
bone's pose is compared relative to its rest: Blender's pose x Blender's rest^-1 x the glTF's
rest world matrix (computed here from the file's nodes). Nodes that are no joint (the RTM
alone) become objects, compared as they are.

Tolerance: every entry of the 3x4 world matrix within TOL = 1e-4 (metres for the position;
the RTM's numbers are float32 and the export splits sheared bones into two nodes, so Blender
composes two float32 transforms) -- for objects (the RTM alone: measured 8e-7 on the corpus)
and for armature bones that do not shear (measured 1.1e-6). Armature bones whose RTM matrices
shear (the export's `<bone> stretch` node above them) within STRETCH_TOL = 1e-2: Blender's
importer turns each bone and writes its pose as location, rotation and scale in the turned
bone's axes, which cannot hold a stretch along the node's axes; the corpus's matrices shear
by up to 1.4 % and the largest error measured is 5.6e-3 (drink_crouch.rtm, RightArm). Blender
keeps the stretch exactly only when the bones stay objects (the RTM alone). The largest
difference of each kind is printed per file. Exits 1 on the first failure.
"""

import json
import sys

import bpy
from mathutils import Matrix, Quaternion

from check_addon import load_addon  # this folder is the script's: first on sys.path

TOL = 1e-4
STRETCH_TOL = 1e-2
FPS = 60
# glTF (x, y, z) is Blender (x, -z, y).
C = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))
C_INV = C.inverted()


def fail(msg):
    print(f"check_rtm: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def gltf_rest_worlds(doc):
    """Every node's world matrix at rest, by name (glTF axes)."""
    nodes = doc["nodes"]
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i

    def local(n):
        if "matrix" in n:
            m = n["matrix"]
            return Matrix([[m[c * 4 + r] for c in range(4)] for r in range(4)])
        t = n.get("translation", [0, 0, 0])
        x, y, z, w = n.get("rotation", [0, 0, 0, 1])
        s = n.get("scale", [1, 1, 1])
        return (Matrix.Translation(t) @ Quaternion((w, x, y, z)).to_matrix().to_4x4()
                @ Matrix.Diagonal((s[0], s[1], s[2], 1)))

    out = {}
    for i, n in enumerate(nodes):
        m = local(n)
        p = parent.get(i)
        while p is not None:
            m = local(nodes[p]) @ m
            p = parent.get(p)
        out[n.get("name", f"node {i}")] = m
    return out


def rtm_world(a):
    """The RTM's 12 numbers (columns aside, up, direction, position) as glTF's world matrix:
    S.M.S with S = diag(-1, 1, 1)."""
    m = Matrix(((a[0], a[3], a[6], a[9]), (a[1], a[4], a[7], a[10]),
                (a[2], a[5], a[8], a[11]), (0, 0, 0, 1)))
    s = Matrix.Diagonal((-1, 1, 1, 1))
    return s @ m @ s


def check(gltf, play, addon=None):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.render.fps_base = 1.0
    if addon is None:
        bpy.ops.import_scene.gltf(filepath=gltf, guess_original_bind_pose=False)
    else:
        rtm, p3d = addon
        load_addon()
        if bpy.ops.import_scene.retroanim_rtm(filepath=rtm, p3d=p3d) != {"FINISHED"}:
            fail(f"the add-on's RTM import of {rtm} did not finish")
    doc = json.load(open(gltf))
    rest = gltf_rest_worlds(doc)
    bones = {}
    for o in scene.objects:
        if o.type == "ARMATURE":
            for b in o.pose.bones:
                bones[b.name] = (o, b)
    frames = [json.loads(l) for l in open(play) if l.strip()]
    frames = [f for f in frames if "bones" in f]
    if not frames:
        fail(f"{play}: no frames")
    stretched = {n["name"][:-len(" stretch")] for n in doc["nodes"]
                 if n.get("extras", {}).get("rtm_stretch")}
    worst = {"exact": (0.0, None), "stretched bone": (0.0, None)}
    count = 0
    for f in frames:
        at = f["phase"] * FPS
        whole = int(at)
        scene.frame_set(whole, subframe=at - whole)
        for b in f["bones"]:
            name = b["name"]
            want = rtm_world(b["matrix"])
            kind, tol = "exact", TOL
            if name in bones:
                if name in stretched:
                    kind, tol = "stretched bone", STRETCH_TOL
                arm, pb = bones[name]
                pose = C_INV @ (arm.matrix_world @ pb.matrix) @ C
                brest = C_INV @ (arm.matrix_world @ pb.bone.matrix_local) @ C
                got = pose @ brest.inverted() @ rest[name]
            elif name in scene.objects:
                got = C_INV @ scene.objects[name].matrix_world @ C
            else:
                fail(f"{gltf}: Blender made neither a bone nor an object {name!r}")
            d = max(abs(got[i][j] - want[i][j]) for i in range(3) for j in range(4))
            count += 1
            if d > worst[kind][0]:
                worst[kind] = (d, (f["frame"], name))
            if d > tol:
                fail(f"{gltf}: frame {f['frame']} (phase {f['phase']}) bone {name!r}: "
                     f"an entry differs by {d:.3g} (> {tol})\n got  {got}\n want {want}")
    skinned = sum(1 for o in scene.objects if o.type == "MESH" and any(
        m.type == "ARMATURE" for m in o.modifiers))
    largest = "; ".join(f"{k} largest {d:.3g}" + (f" (frame {w[0]} {w[1]!r})" if w else "")
                        for k, (d, w) in worst.items())
    label = gltf if addon is None else f"the add-on's import of {addon[0]} on {addon[1]}"
    print(f"check_rtm: {label}: {len(frames)} frames, {count} bone poses: {largest}; "
          f"{len(bones)} armature bones, {skinned} skinned meshes")
    return skinned


def main():
    args = sys.argv[1:]
    if "--addon" in args:
        k = args.index("--addon")
        rtm, p3d, gltf, play = args[k + 1:k + 5]
        del args[k:k + 5]
        if check(gltf, play, addon=(rtm, p3d)) != 1:
            fail(f"the add-on's import of {rtm} on {p3d} made no skinned mesh")
    if not args or len(args) % 2:
        fail("usage: check_rtm.py GLTF PLAY.jsonl [GLTF PLAY.jsonl ...]")
    for gltf, play in zip(args[::2], args[1::2]):
        check(gltf, play)


main()
