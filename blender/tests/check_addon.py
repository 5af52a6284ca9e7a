"""The add-on, headless (Blender as the `bpy` module): imports corpus files of each format through
its operators and checks objects, hierarchy, animation and poses at sampled frames against
`retroanim.play`; exports P3D LOD frames and checks them against the model they came from;
exports a keyed three-object chain for the PlayStation (TOD + TMD through the operator, HMD)
and plays both with `retroanim.play` against Blender's own poses.

Imports a TMD with TIM files beside it without naming them ("Find textures beside the file"):
every image texture of the imported materials has the pixels of a TIM that ``retroanim.assemble``
matched to the model, decoded by ``retroanim.convert(tim, "png")`` (one of its CLUTs).

Imports MIMe differences (a VDF) without naming their base: the add-on finds the TMD
``retroanim.assemble`` pairs with them and imports it with one shape key per MIMe key; every
shape key's vertices must be exactly (float32) the vertices ``retroanim.play_mime`` computes at
weight 4096 for that key. The mesh, exported again by Blender's glTF exporter (re-indexed as
Blender writes it), authors the same VDF back byte for byte.

Usage: python3 blender/tests/check_addon.py OUT_DIR TOD TMD HMD P3D TEXTURED_TMD [PMD RSD [VDF]]
(run by python/tests/test_blender.py). Prints one line per check; exits 1 on the first failure.

Tolerances: PlayStation poses are compared at retroanim's default scale (1/4096 m per unit):
positions within POSE_UNITS = 0.5 PlayStation units, rotations within POSE_DEGREES = 0.05° (the
fidelity issue's bounds; the export writes world-exact locals, so Blender's composed world
matrices match the console's however deep the chain). The largest differences are printed. P3D LOD frames go through float32 both ways:
P3D_TOL = 1e-4 m.
"""

import importlib.util
import json
import math
import struct
import sys
from pathlib import Path

import bpy

import retroanim

HERE = Path(__file__).resolve().parent
POSE_UNITS = 0.5
POSE_DEGREES = 0.05
P3D_TOL = 1e-4
SCALE = 1 / 4096


def fail(msg):
    print(f"check_addon: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def load_addon():
    """The add-on (blender/), imported as ``retroanim_blender`` and registered, once."""
    if "retroanim_blender" in sys.modules:
        return sys.modules["retroanim_blender"]
    spec = importlib.util.spec_from_file_location(
        "retroanim_blender", HERE.parent / "__init__.py",
        submodule_search_locations=[str(HERE.parent)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["retroanim_blender"] = mod
    spec.loader.exec_module(mod)
    mod.register()
    return mod


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)


# PlayStation (x, y, z) → glTF (x, -y, -z) → Blender (x, -z_gltf, y_gltf) = (x, z, -y).
C = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]


def to_blender(rotation, translation):
    m = [[rotation[i][j] / 4096 for j in range(3)] for i in range(3)]
    cm = [[sum(C[i][k] * m[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    bm = [[sum(cm[i][k] * C[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
    t = [sum(C[i][k] * translation[k] for k in range(3)) * SCALE for i in range(3)]
    return bm, t


def rotation_degrees(a, b):
    """The angle of the rotation taking 3×3 matrix `b` to `a` (columns normalised first, so a
    scale does not count), in degrees."""
    def unit_cols(m):
        cols = []
        for j in range(3):
            n = math.sqrt(sum(m[i][j] ** 2 for i in range(3))) or 1.0
            cols.append([m[i][j] / n for i in range(3)])
        return cols
    ca, cb = unit_cols(a), unit_cols(b)
    # trace(Aᵀ·B) = Σ_j col_a[j]·col_b[j]
    tr = sum(sum(ca[j][i] * cb[j][i] for i in range(3)) for j in range(3))
    return math.degrees(math.acos(max(-1.0, min(1.0, (tr - 1) / 2))))


def compare_poses(pb, name_of, frame_of, label, units_tol=POSE_UNITS, degrees_tol=POSE_DEGREES):
    """Every present node of `pb` at sampled frames against its Blender object: the position
    difference in PlayStation units and the rotation difference in degrees, each within its
    tolerance (POSE_UNITS, POSE_DEGREES unless given); returns nothing, prints the largest of
    each."""
    scene = bpy.context.scene
    objs = scene.objects
    worst_u, worst_deg, checked, where_u, where_deg = 0.0, 0.0, 0, None, None
    step = max(1, len(pb.frames) // 6)
    for fi in range(0, len(pb.frames), step):
        scene.frame_set(frame_of(int(pb.frames[fi])))
        for ni, node in enumerate(pb.ids):
            if not pb.present[fi, ni]:
                continue
            name = name_of(node)
            if name not in objs:
                fail(f"{label}: no object {name!r}")
            mw = objs[name].matrix_world
            want_m, want_t = to_blender(pb.rotation[fi, ni].tolist(), pb.translation[fi, ni].tolist())
            units = math.sqrt(sum((mw[i][3] - want_t[i]) ** 2 for i in range(3))) / SCALE
            deg = rotation_degrees([[mw[i][j] for j in range(3)] for i in range(3)], want_m)
            if units > worst_u:
                worst_u, where_u = units, (int(pb.frames[fi]), name)
            if deg > worst_deg:
                worst_deg, where_deg = deg, (int(pb.frames[fi]), name)
            checked += 1
    if checked == 0:
        fail(f"{label}: no pose checked")
    sampled = range(0, len(pb.frames), step)
    if len({(pb.rotation[fi].tobytes(), pb.translation[fi].tobytes()) for fi in sampled}) < 2:
        fail(f"{label}: the sampled frames all hold one pose; nothing animated was checked")
    if worst_u > units_tol:
        fail(f"{label}: positions differ from retroanim.play by up to {worst_u:.3f} units (> {units_tol}) at frame, node {where_u}")
    if worst_deg > degrees_tol:
        fail(f"{label}: rotations differ from retroanim.play by up to {worst_deg:.4f}° (> {degrees_tol}°) at frame, node {where_deg}")
    print(f"check_addon: {label}: {checked} node poses within {worst_u:.3f} units and {worst_deg:.4f}° of retroanim.play")


def check_tod(addon, tod, tmd):
    fresh()
    bpy.ops.import_scene.retroanim_psx(filepath=tod, tmd=tmd)
    objs = bpy.context.scene.objects
    pb = retroanim.play(tod, tmd=tmd)
    # Hierarchy: each object's parent at frame 0 is the parent the player gives it.
    for ni, node in enumerate(pb.ids):
        if not pb.present[0, ni]:
            continue
        obj = objs.get(f"object {node}")
        if obj is None:
            fail(f"TOD: no object 'object {node}'")
        parent = int(pb.parents[0, ni])
        if parent >= 0 and (obj.parent is None or obj.parent.name != f"object {parent}"):
            fail(f"TOD: object {node} has parent {obj.parent and obj.parent.name}, expected object {parent}")
    animated = [o for o in objs if o.animation_data and o.animation_data.action]
    if not animated:
        fail("TOD: no object carries an action")
    if not any(o.type == "MESH" for o in objs):
        fail("TOD with its TMD: no mesh imported")
    spf = pb.seconds_per_frame
    compare_poses(pb, lambda n: f"object {n}", lambda f: round(f * spf * 60), f"TOD {Path(tod).name}")


def check_hmd(addon, hmd):
    fresh()
    bpy.ops.import_scene.retroanim_psx(filepath=hmd, sequence=0)
    objs = bpy.context.scene.objects
    # The glTF holds one pass of the animation (the player loops it): compare within the
    # frames its actions cover.
    end = int(max(o.animation_data.action.frame_range[1] for o in objs
                  if o.animation_data and o.animation_data.action))
    pb = retroanim.play(hmd, frames=(0, end))
    for ni, node in enumerate(pb.ids):
        obj = objs.get(f"coord {node}")
        if obj is None:
            fail(f"HMD: no object 'coord {node}'")
        parent = int(pb.parents[0, ni])
        if parent >= 0 and (obj.parent is None or obj.parent.name != f"coord {parent}"):
            fail(f"HMD: coord {node} has parent {obj.parent and obj.parent.name}, expected coord {parent}")
    if not any(o.animation_data and o.animation_data.action for o in objs):
        fail("HMD: no object carries an action")
    compare_poses(pb, lambda n: f"coord {n}", lambda f: f, f"HMD {Path(hmd).name} frames 0..{end}")


def check_tmd(addon, tmd):
    fresh()
    bpy.ops.import_scene.retroanim_psx(filepath=tmd)
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    objects = retroanim.read(tmd).summary()["objects"]
    objects = len(objects) if isinstance(objects, list) else objects
    if not meshes:
        fail("TMD: no mesh imported")
    print(f"check_addon: TMD {Path(tmd).name}: {len(meshes)} meshes for {objects} TMD objects")


def image_pixels(image):
    """An image's RGBA pixels as bytes 0..255 (bottom row first, as Blender keeps them) and its
    size."""
    import numpy as np

    px = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(px)
    return np.rint(px * 255).astype(np.int16).reshape(-1, 4), tuple(image.size)


def tim_decodings(tim, tmp_dir):
    """`tim` decoded by ``retroanim.convert(tim, "png")`` with each of its CLUTs, its STP
    texels opaque and semi-transparent (alpha 128): [(pixels, size)]."""
    out = []
    for semi in (False, True):
        for k in range(256):
            try:
                png = retroanim.convert(tim, "png", clut=k, semi_transparent=semi).data
            except retroanim.OptionError:
                if k == 0:  # a 16-bit TIM has no CLUT
                    png = retroanim.convert(tim, "png", semi_transparent=semi).data
                else:
                    break
            path = Path(tmp_dir) / f"decoded_{len(out)}.png"
            path.write_bytes(png)
            img = bpy.data.images.load(str(path))
            out.append(image_pixels(img))
            bpy.data.images.remove(img)
            if k + 1 >= tim.summary().get("cluts", 0):
                break
    return out


def same_texels(img, decoded):
    """The image holds the decoded texels: the same size, the same colours, the same alpha, except
    that STP texels of a semi-transparent material (alpha 128 decoded) carry the alpha of its
    blend mode."""
    (a, size_a), (b, size_b) = img, decoded
    if size_a != size_b:
        return False
    stp = b[:, 3] == 128
    return bool((a[:, :3] == b[:, :3]).all() and (a[~stp, 3] == b[~stp, 3]).all()
                and (a[stp, 3] > 0).all())


def material_images():
    """The image textures of the scene's materials, by name."""
    images = {}
    for o in bpy.context.scene.objects:
        for slot in getattr(o, "material_slots", []):
            mat = slot.material
            if mat is None or mat.node_tree is None:
                continue
            for node in mat.node_tree.nodes:
                if node.type == "TEX_IMAGE" and node.image is not None:
                    images[node.image.name] = node.image
    return images


def check_tmd_textures(addon, tmd, out_dir):
    fresh()
    if bpy.ops.import_scene.retroanim_psx(filepath=tmd) != {"FINISHED"}:
        fail(f"TMD {tmd}: the import did not finish")
    images = material_images()
    if not images:
        fail(f"TMD {Path(tmd).name}: no material has an image texture (TIMs beside it not found)")
    asm = retroanim.assemble(Path(tmd).parent)
    asset = asm.asset(tmd)
    if asset is None or not asset.textures or asset.untextured:
        fail(f"TMD {Path(tmd).name}: the assembly does not texture it whole: {asset}")
    decodings = [d for t in asm.tims_for(asset) for d in tim_decodings(t, out_dir)]
    for name, img in images.items():
        pixels = image_pixels(img)
        if not any(same_texels(pixels, d) for d in decodings):
            fail(f"TMD {Path(tmd).name}: image {name} ({tuple(img.size)}) equals no matched TIM "
                 f"decoded ({[d[1] for d in decodings]})")
    _, notes = addon.textures_beside(tmd)
    matched = [n for n in notes if n.code == "paired-textures"]
    if len(matched) != len(asset.textures) or any("confidence" not in n.message for n in matched):
        fail(f"TMD {Path(tmd).name}: the import's report does not name each TIM with its "
             f"confidence: {notes}")
    fresh()
    bpy.ops.import_scene.retroanim_psx(filepath=tmd, find_textures=False)
    if material_images():
        fail(f"TMD {Path(tmd).name}: textured though 'Find textures beside the file' is off")
    print(f"check_addon: TMD {Path(tmd).name} textured from beside it: {len(images)} images equal "
          f"its {len(asset.textures)} matched TIMs decoded ({'; '.join(n.message for n in matched)})")


#: Authoring bounds (File → Export → PlayStation): TOD and HMD store each local pose in whole
#: units and 1/4096 turns, solved against the console's own parent world (within a unit per
#: axis; the bounds here are distances, over three axes).
AUTHOR_TOD = (2.0, 0.1)
AUTHOR_HMD = (2.0, 0.15)


def build_scene():
    """A three-object chain (60 fps, frames 0..30) with location and rotation keys."""
    fresh()
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 60, 1.0
    scene.frame_start, scene.frame_end = 0, 30
    parent = None
    for i, name in enumerate(("torso", "upper", "lower")):
        bpy.ops.mesh.primitive_cube_add(size=0.4 - 0.1 * i)
        obj = bpy.context.object
        obj.name = name
        obj.parent = parent
        for frame, loc, rot in [(0, (0, 0, 0.5 * (i > 0)), (0, 0, 0)),
                                (12, (0.1 * i, 0.2, 0.5 * (i > 0)), (20, 0, 35 * (i + 1))),
                                (30, (0, -0.1, 0.6 * (i > 0)), (-15, 25, 10))]:
            obj.location = loc
            obj.rotation_euler = [math.radians(a) for a in rot]
            obj.keyframe_insert("location", frame=frame)
            obj.keyframe_insert("rotation_euler", frame=frame)
        parent = obj


def check_export(addon, out_dir):
    """File → Export → PlayStation: the chain as TOD (+ TMD) through the operator and as HMD,
    both played by retroanim against Blender's evaluated world matrices."""
    build_scene()
    tod = Path(out_dir) / "chain.tod"
    result = bpy.ops.export_scene.retroanim_psx(filepath=str(tod))
    tmd = tod.with_suffix(".tmd")
    if result != {"FINISHED"} or not tod.exists() or not tmd.exists():
        fail(f"PlayStation export to {tod.name}: {result}, files {sorted(p.name for p in Path(out_dir).iterdir())}")
    conv, names = addon.export_psx(bpy.context, str(Path(out_dir) / "chain.hmd"))
    if conv.path is None or not conv.path.exists():
        fail("PlayStation export to .hmd wrote nothing")
    pb = retroanim.play(tod, tmd=tmd)
    spf = pb.seconds_per_frame
    compare_poses(pb, lambda n: names[n - 1], lambda f: round(f * spf * 60),
                  "export → TOD", *AUTHOR_TOD)
    pb = retroanim.play(conv.path, frames=(0, 30))
    compare_poses(pb, lambda n: names[n], lambda f: f, "export → HMD", *AUTHOR_HMD)
    try:
        addon.export_psx(bpy.context, str(Path(out_dir) / "chain.tod"), fps=30)
        fail("an HMD frame rate on a TOD export was accepted")
    except retroanim.OptionError as e:
        print(f"check_addon: export refuses an option that does not apply: {e}")
    check_export_output_rule(Path(out_dir))


def check_export_output_rule(out_dir):
    """The export writes through the library's output rule: an unrelated file beside the TOD
    (other.tmd), an existing export, /dev/null and a FIFO are never replaced without the
    "Replace existing files" box; with it the export's own files are replaced."""
    import os
    import stat

    other = out_dir / "other.tod"
    (out_dir / "other.tmd").write_bytes(b"the user's own model")
    # An earlier export of another scene (the same scene's bytes would be left as they are).
    (out_dir / "chain.tod").write_bytes(b"an older export")
    before = sorted((p.name, p.read_bytes()) for p in out_dir.iterdir() if p.is_file())
    fifo = out_dir / "fifo.tod"
    os.mkfifo(fifo)
    for path in [other, out_dir / "chain.tod", Path("/dev/null"), fifo]:
        try:
            result = bpy.ops.export_scene.retroanim_psx(filepath=str(path))
        except RuntimeError:  # the operator's error report raises in background mode
            result = {"CANCELLED"}
        if result != {"CANCELLED"}:
            fail(f"export over {path} without 'Replace existing files': {result}")
    after = sorted((p.name, p.read_bytes()) for p in out_dir.iterdir() if p.is_file())
    if after != before:
        fail("a refused export changed files: "
             f"{sorted(set(after) ^ set(before), key=lambda x: x[0])[:3]}")
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode) or not stat.S_ISFIFO(os.stat(fifo).st_mode):
        fail("/dev/null or the FIFO is no longer what it was")
    result = bpy.ops.export_scene.retroanim_psx(filepath=str(other), replace=True)
    if result != {"FINISHED"} or (out_dir / "other.tmd").read_bytes() == b"the user's own model":
        fail(f"export with 'Replace existing files' did not replace other.tmd: {result}")
    os.unlink(fifo)
    print("check_addon: export refuses existing files, /dev/null and a FIFO without the "
          "'Replace existing files' box, and replaces them with it")


def pc2_frames(model):
    return retroanim_addon._pc2_frames(retroanim.convert(model, "pc2").data)


def check_p3d(addon, p3d, out_dir):
    fresh()
    scene = bpy.context.scene
    scene.render.fps = 30
    source = retroanim.read(p3d)
    frames = pc2_frames(source)
    n = len(frames)
    # One Blender frame per LOD frame: the phase (0..1) lasts n-1 frames at 30 fps.
    bpy.ops.import_scene.retroanim_p3d(filepath=p3d, fps=30, duration=(n - 1) / 30)
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if len(meshes) != 1:
        fail(f"P3D: {len(meshes)} meshes imported, expected the one LOD")
    obj = meshes[0]
    keys = obj.data.shape_keys
    if keys is None or len(keys.key_blocks) != n + 1:
        fail(f"P3D: expected {n} LOD-frame shape keys besides the basis, "
             f"have {keys and len(keys.key_blocks)}")
    if not (keys.animation_data and keys.animation_data.action):
        fail("P3D: the shape keys are not animated")
    attr = obj.data.attributes.get(addon.POINT_ATTRIBUTE)
    if attr is None or any(a.value < 0 for a in attr.data):
        fail("P3D: vertices not all mapped to P3D points")
    mapping = [a.value for a in attr.data]
    # Pose at every LOD frame: evaluated vertices sit on the frame's points.
    depsgraph = bpy.context.evaluated_depsgraph_get()
    worst = 0.0
    for k in range(n):
        scene.frame_set(k)
        mesh = obj.evaluated_get(depsgraph).to_mesh()
        for v, p in zip(mesh.vertices, mapping):
            co = addon._to_cache(v.co)
            worst = max(worst, max(abs(a - b) for a, b in zip(co, frames[k][p])))
        obj.evaluated_get(depsgraph).to_mesh_clear()
    if worst > P3D_TOL:
        fail(f"P3D: evaluated vertices differ from the LOD frames by {worst}")
    print(f"check_addon: P3D {Path(p3d).name}: {len(mapping)} vertices on {len(frames[0])} points "
          f"over {n} frames within {worst:.1e} m")
    # Export the animation back into the model.
    out = Path(out_dir) / "frames.p3d"
    bpy.context.view_layer.objects.active = obj
    scene.frame_start, scene.frame_end = 0, n - 1
    result = bpy.ops.export_scene.retroanim_p3d_frames(filepath=str(out), base=p3d)
    if result != {"FINISHED"} or not out.exists():
        fail(f"P3D export: {result}")
    exported = retroanim.read(out)
    errors = [f for f in exported.validate() if f.severity == "error"]
    if errors:
        fail(f"P3D export: validate finds {errors}")
    if exported.write() != out.read_bytes():
        fail("P3D export: does not round-trip byte for byte")
    again = pc2_frames(exported)
    if len(again) != n:
        fail(f"P3D export: {len(again)} LOD frames, expected {n}")
    worst = max(abs(a - b) for fa, fb in zip(again, frames) for pa, pb_ in zip(fa, fb)
                for a, b in zip(pa, pb_))
    if worst > P3D_TOL:
        fail(f"P3D export: frames moved by {worst}")
    print(f"check_addon: P3D export: {n} LOD frames back in the model within {worst:.1e} m")
    json.dump({"exported": str(out)}, open(Path(out_dir) / "export.json", "w"))


def check_pmd_rsd(addon, pmd, rsd, out_dir):
    """A PMD and an RSD set import as meshes (through the library's PMD → glTF and RSD → glTF);
    the RSD's mesh exported back as an RSD set reads as one with the same polygon count."""
    for path, kind in ((pmd, "PMD"), (rsd, "RSD")):
        fresh()
        result = bpy.ops.import_scene.retroanim_psx(filepath=path)
        meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
        if result != {"FINISHED"} or not meshes:
            fail(f"{kind} {Path(path).name}: no mesh imported ({result})")
        polygons = sum(len(o.data.polygons) for o in meshes)
        if polygons == 0:
            fail(f"{kind} {Path(path).name}: the meshes have no polygon")
        print(f"check_addon: {kind} {Path(path).name}: {len(meshes)} meshes, {polygons} polygons")
    # The RSD scene is still loaded: export it as an RSD set and read that back.
    want = retroanim.read_rsd(rsd).summary()
    out = Path(out_dir) / "back.rsd"
    conv, _ = addon.export_psx(bpy.context, str(out))
    if not out.exists():
        fail("RSD export: nothing written")
    got = retroanim.read_rsd(out).summary()
    polys = lambda s: s["triangles"] + s["quads"]
    if polys(got) != polys(want):
        fail(f"RSD export: {polys(got)} polygons, the imported set had {polys(want)}")
    print(f"check_addon: RSD export: {polys(got)} polygons back in {out.name} "
          f"({len(conv.extra)} files beside it)")


def check_mime(addon, vdf, out_dir):
    """A VDF imports as shape keys on its base TMD's mesh, each exactly the library's played
    vertices; Blender's own glTF export of it authors the same VDF and NDF."""
    fresh()
    result = bpy.ops.import_scene.retroanim_psx(filepath=vdf)
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    if result != {"FINISHED"} or len(meshes) != 1:
        fail(f"VDF {Path(vdf).name}: {len(meshes)} meshes imported ({result})")
    obj = meshes[0]
    keys = obj.data.shape_keys.key_blocks if obj.data.shape_keys else []
    names = [k.name for k in keys]
    folder = Path(vdf).parent
    tmd = folder / "MD0.TMD"
    base = retroanim.play_mime(vdf, tmd, [0] * (len(names) - 1))[0]
    # Console (x, y, z) → Blender (x, z, −y), at 1/4096 m per unit, in float32 as Blender
    # stores it; each Blender vertex shows the TMD vertex at its rest point (the sample's
    # vertices are distinct points).
    f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
    to_b = lambda p: tuple(f32(c * SCALE) for c in (int(p[0]), int(p[2]), -int(p[1])))
    where = {to_b(p): i for i, p in enumerate(base)}
    if len(where) != len(base):
        fail("MD0.TMD repeats a vertex position: the check cannot tell its vertices apart")
    rest = [tuple(f32(c) for c in v.co) for v in keys[0].data] if keys else []
    shows = [where.get(p) for p in rest]
    if None in shows or len(names) < 2:
        fail(f"VDF: shape keys {names}, {shows.count(None)} vertices at no TMD vertex")
    worst = 0
    for k, kb in enumerate(keys[1:]):
        w = [0] * (len(keys) - 1)
        w[k] = 4096
        played = retroanim.play_mime(vdf, tmd, w)[0]
        for i, v in enumerate(kb.data):
            want = to_b(played[shows[i]])
            got = tuple(f32(c) for c in v.co)
            if got != want:
                fail(f"VDF shape key {kb.name!r}, vertex {i} (TMD vertex {shows[i]}): "
                     f"{got}, the library plays {want}")
        worst = max(worst, max(abs(int(a) - int(b)) for p, q in zip(played, base)
                               for a, b in zip(p, q)))
    print(f"check_addon: VDF {Path(vdf).name}: {len(keys) - 1} shape keys on "
          f"{len(rest)} vertices, every one at the library's played vertices "
          f"(keys move up to {worst} units)")
    # Blender's own export authors the VDF back: as imported, and with the corners of each
    # point merged (Merge by Distance), which Blender then writes re-indexed, split only where
    # its normals or UVs differ. (Its shape keys hold positions only: the target normals it
    # writes are its own, so an NDF is authored from the library's export, not from Blender's.)
    want = Path(vdf).read_bytes()
    for merged in (False, True):
        if merged:
            bpy.context.view_layer.objects.active = obj
            obj.select_set(True)
            bpy.ops.object.mode_set(mode="EDIT")
            bpy.ops.mesh.select_all(action="SELECT")
            bpy.ops.mesh.remove_doubles(threshold=0.0)
            bpy.ops.object.mode_set(mode="OBJECT")
        glb = addon.export_glb(bpy.context)
        back = retroanim.convert(glb, "vdf", tmd=tmd)
        if back.data != want:
            fail(f"VDF from Blender's glTF export (merged: {merged}) differs from "
                 f"{Path(vdf).name} ({len(back.data)} bytes, want {len(want)}; "
                 f"notes {back.notes})")
        print(f"check_addon: VDF: Blender's glTF export ({len(obj.data.vertices)} vertices) "
              f"authors {Path(vdf).name} back byte for byte "
              f"({', '.join(n.code for n in back.notes) or 'no notes'})")


if __name__ == "__main__":
    out_dir, tod, tmd, hmd, p3d, textured_tmd = sys.argv[1:7]
    retroanim_addon = load_addon()
    check_tmd_textures(retroanim_addon, textured_tmd, out_dir)
    check_tod(retroanim_addon, tod, tmd)
    check_hmd(retroanim_addon, hmd)
    check_tmd(retroanim_addon, tmd)
    check_p3d(retroanim_addon, p3d, out_dir)
    check_export(retroanim_addon, out_dir)
    if len(sys.argv) > 8:
        check_pmd_rsd(retroanim_addon, sys.argv[7], sys.argv[8], out_dir)
    if len(sys.argv) > 9:
        check_mime(retroanim_addon, sys.argv[9], out_dir)
    print("check_addon: all checks hold")
