"""The round trip through Blender (issue 25, "The same through Blender"; docs/blender.md): a TOD
with its TMD and HMDs of every kind (vertex MIMe, joint axes MIMe with shared polygons, shared
polygons on an armature, environment map, cameras and lights, five sequences) are exported to
GLB, imported
into Blender (its own glTF importer, or the add-on's import for the TOD) and exported with the
add-on's PlayStation export (`blender/tests/check_roundtrip.py`), unedited and with one location
key moved. Checked here against the original files with `retroanim.play`:

- unedited: the same structure (TOD: resolution, object IDs, lights, cameras, and at every
  frame each object's parent, TMD ID, attribute word and visibility; HMD: coordinates and their
  parents, sequence count, the coordinate sequence pointers in order with their stream IDs and
  how each sequence ends or loops, cameras and lights where they were) and every world matrix
  within 1 unit at every frame (HMD: every sequence, 240 updates);
- one key moved: the frames outside the interval between the key's neighbours (and, for a clip
  that loops, its repeats) are unchanged within 1 unit; the moved object is elsewhere at the
  key's frame.

Every one of these HMDs comes back with its file's own sequence table (coordinate pointers found
through the header word that points at the coordinate section: AMMONITE's is word 5, and
SWITCH's word 4 points at MIMe weights), and its pointers with stream-ID jumps (SWITCH's joint
MIMe weight pointers, which switch between walk and run, included). Skipped loudly without `bpy` unless
RETROANIM_REQUIRE_CORPUS=1.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import retroanim
from conftest import REPO, corpus_file, require_blender

#: A world matrix within this of the original: the largest difference of a translation (units)
#: or a rotation element (4096ths).
UNITS = 1
#: The moved key (0.05 m = 205 units at 1/4096 m per unit) moves its object at least this far.
MOVED = 100
#: HMD updates played per sequence.
FRAMES = 240
#: Console `CONTROL_END` (a sequence descriptor's END).
CONTROL_END = 1

HMD = "psyq/psx/data/HMD/SCEI/"
JANKEN = "addons/graphics/TOD/JANKEN"


def _one(kind, suffix):
    return str(corpus_file(kind, suffix))


def _cases():
    hmd = lambda n: _one("HMD", HMD + n)  # noqa: E731
    key = lambda fmt, ident, frame: {"format": fmt, "id": ident, "frame": frame,  # noqa: E731
                                     "metres": 0.05}
    return [
        {"name": "janken", "source": _one("TOD", f"{JANKEN}/TOD/JAANKEN.TOD"),
         "tmd": _one("TMD", f"{JANKEN}/TMD/TE.TMD"), "import": "addon",
         "move": key("tod", 26, 40)},
        {"name": "ammonite", "source": hmd("COMB/AMMONITE/AMMONITE.HMD"), "import": "gltf"},
        {"name": "switch", "source": hmd("COMB/WALKRUN/SWITCH.HMD"), "import": "gltf"},
        {"name": "pyramid5", "source": hmd("TUTO/PYRAMID/PYRAMID5.HMD"), "import": "gltf",
         "move": key("hmd", 1, 30)},
        {"name": "star09", "source": hmd("ENVMAP/STAR09.HMD"), "import": "gltf",
         "move": key("hmd", 1, 40)},
        {"name": "snowman", "source": hmd("EQUIP/SNOWMAN/SNOWMAN.HMD"), "import": "gltf"},
        {"name": "cube0", "source": hmd("ANIM/CUBE0/CUBE0.HMD"), "import": "gltf"},
    ]


@pytest.fixture(scope="module")
def through_blender(tmp_path_factory):
    """Runs the Blender side once: (cases by name, results by name, the output folder)."""
    require_blender("the Blender round-trip test")
    out = tmp_path_factory.mktemp("blender_roundtrip")
    cases = _cases()
    for c in cases:
        c.setdefault("tmd", None)
        c.setdefault("move", None)
    (out / "cases.json").write_text(json.dumps(cases))
    p = subprocess.run([sys.executable, REPO / "blender" / "tests" / "check_roundtrip.py", out,
                        out / "cases.json"], capture_output=True, text=True, timeout=600)
    report = [line for line in p.stdout.splitlines() + p.stderr.splitlines()
              if "check_roundtrip" in line]
    print("\n".join(report))
    assert p.returncode == 0, "\n".join(report) or p.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    return {c["name"]: c for c in cases}, results, out


def _distance(a, b):
    """The largest difference of two world matrices: translation in units, rotation in 4096ths."""
    d = np.abs(a - b)
    d[..., :3, :3] *= 4096
    return d


# --- TOD -------------------------------------------------------------------------------------

def _tod_structure(play):
    return [sorted((o["id"], o["parent"], o["tmd_id"], o["attribute"], o["visible"])
                   for o in f["objects"]) for f in play.raw]


def _tod_worlds(play):
    """{frame: {object ID: world}}."""
    return {int(f): {i: play.world[k, n] for n, i in enumerate(play.ids) if play.present[k, n]}
            for k, f in enumerate(play.frames)}


def test_tod_with_its_tmd_comes_back_through_blender(through_blender):
    cases, results, _ = through_blender
    case, got = cases["janken"], results["janken"]
    tod, tmd = got["same"][0], next(p for p in got["same"] if p.lower().endswith(".tmd"))
    a, b = retroanim.read(case["source"]).summary(), retroanim.read(tod).summary()
    for k in ("resolution", "objects", "lights", "cameras", "frames"):
        assert a[k] == b[k], f"{k}: {a[k]} → {b[k]}"
    old, new = retroanim.play(case["source"], tmd=case["tmd"]), retroanim.play(tod, tmd=tmd)
    assert _tod_structure(old) == _tod_structure(new)
    worst = max(_distance(old.world[old.present], new.world[new.present]).max(), 0)
    assert worst <= UNITS, f"world matrices differ by up to {worst}"
    print(f"JANKEN through Blender: {len(old.frames)} frames of {len(old.ids)} objects, "
          f"worst world difference {worst}")


def test_tod_key_moved_in_blender_changes_only_its_frames(through_blender):
    cases, results, _ = through_blender
    case, got = cases["janken"], results["janken"]
    key = got["key"]
    tod, tmd = got["moved"][0], next(p for p in got["moved"] if p.lower().endswith(".tmd"))
    old = _tod_worlds(retroanim.play(case["source"], tmd=case["tmd"]))
    new = _tod_worlds(retroanim.play(tod, tmd=tmd))
    assert old.keys() == new.keys()
    changed = sorted(f for f in old if any(_distance(old[f][i], new[f][i]).max() > UNITS
                                           for i in old[f]))
    inside = set(range(key["previous"] + 1, key["next"]))
    assert set(changed) <= inside, f"frames {changed} changed; the key touches {sorted(inside)}"
    moved = case["move"]["id"]
    shift = np.abs(old[key["frame"]][moved][:3, 3] - new[key["frame"]][moved][:3, 3]).max()
    assert shift >= MOVED, f"object {moved} moved {shift} units at frame {key['frame']}"
    print(f"JANKEN key moved at frame {key['frame']}: frames {changed} changed, object {moved} "
          f"by {shift:.0f} units")


# --- HMD -------------------------------------------------------------------------------------

def _model(path):
    return json.loads(retroanim.read(path).to_json())["model"]


def _sections(model):
    """Each animation primitive as (sequence pointers, descriptors, the number of its header
    word that points at the coordinate section: an update into it at word 1 + 20·k updates
    coordinate k)."""
    regions = {r["offset"]: r["body"] for r in model["regions"]}
    headers = {}
    for body in regions.values():
        if "primitive_headers" in body:
            at = model["primitive_header_section"] + 1
            for h in body["primitive_headers"]:
                headers[at] = h["words"]
                at += 1 + len(h["words"])
    anims = []
    for body in regions.values():
        prim = body.get("primitive")
        for t in (prim or {}).get("types", []):
            if "sequences" not in t["data"]:
                continue
            words = headers.get(prim["header"], [])
            control = words[2].get("pointer") if len(words) > 2 else None
            section = regions.get(control, {}).get("section", {})
            if section.get("role") != "sequence_control":
                raise AssertionError(f"no sequence descriptors for the animation at {prim}")
            coords = next((at for at, b in regions.items() if "coordinates" in b), None)
            coordinate_section = next(
                (i for i, w in enumerate(words) if coords is not None and w.get("pointer") == coords),
                None)
            anims.append((t["data"]["sequences"], section["data"]["sequence_control"],
                          coordinate_section))
    return anims


def _flow(descriptors, start, sid):
    """'L' when the sequence from `start` with stream ID `sid` comes back to a descriptor, 'E'
    when it reaches END, '-' when it runs off the table."""
    at, seen = start, set()
    while 0 <= at < len(descriptors):
        if (at, sid) in seen:
            return "L"
        seen.add((at, sid))
        d = descriptors[at]
        jump = d.get("jump")
        if jump and jump["sid_cnd"] in (0, sid):
            at = jump["seq_idx"]
            sid = jump["sid_dst"] or sid
            continue
        if "control" in d and d["control"]["code"] == CONTROL_END:
            return "E"
        at += 1
    return "-"


def _table(path):
    """(sequence count, the coordinate pointers in order: (coordinate, [(stream ID, flow)]))."""
    count, pointers = 0, []
    for seqs, descriptors, coordinate_section in _sections(_model(path)):
        for p in seqs:
            starts = [(p["start_sid"], p["start"])] + [(e["sid"], max(e["start"], 0))
                                                         for e in p.get("extra", [])]
            count = max(count, len(starts))
            off = p["update"]["offset"] - 1
            if p["update"]["section"] == coordinate_section and off >= 0 and off % 20 == 0:
                pointers.append((off // 20, [(sid, _flow(descriptors, s, sid))
                                             for sid, s in starts]))
    return count, pointers


def _switching(path):
    """The sequence pointers whose sequences reach a stream-ID jump (a program's motion
    switch), under any stream ID: (those that update a coordinate, all: SWITCH's joint MIMe
    weight pointers too)."""
    coords, n = 0, 0
    for seqs, descriptors, coordinate_section in _sections(_model(path)):
        for p in seqs:
            off = p["update"]["offset"] - 1
            coordinate = p["update"]["section"] == coordinate_section and off >= 0 and not off % 20
            stack = [p["start"]] + [max(e["start"], 0) for e in p.get("extra", [])]
            seen, found = set(), False
            while stack:
                at = stack.pop()
                if at in seen or not 0 <= at < len(descriptors):
                    continue
                seen.add(at)
                d = descriptors[at]
                if "jump" in d:
                    j = d["jump"]
                    found |= bool(j["sid_dst"] or j["sid_cnd"])
                    stack.append(j["seq_idx"])
                    if j["sid_cnd"]:
                        stack.append(at + 1)
                elif not ("control" in d and d["control"]["code"] == CONTROL_END):
                    stack.append(at + 1)
            n += found
            coords += found and coordinate
    return coords, n


def _devices(path):
    """Each placed camera and light: (position, unit direction)."""
    out = []
    for d in retroanim.play(path, frames=0).raw[0].get("devices", []):
        if d.get("position") is None or d.get("target") is None:
            continue
        v = np.array(d["target"], float) - np.array(d["position"], float)
        out.append((np.array(d["position"], float), v / max(np.linalg.norm(v), 1e-9)))
    return out


def _hmd_worlds(path, sequence):
    kw = {} if sequence is None else {"sequence": sequence}
    return retroanim.play(path, frames=(0, FRAMES - 1), **kw)


@pytest.mark.parametrize("name", ["ammonite", "switch", "pyramid5", "star09", "snowman", "cube0"])
def test_hmd_comes_back_through_blender(through_blender, name):
    cases, results, _ = through_blender
    source, hmd = cases[name]["source"], results[name]["same"][0]
    old0, new0 = retroanim.play(source, frames=0), retroanim.play(hmd, frames=0)
    assert old0.parents[0].tolist() == new0.parents[0].tolist(), "coordinates and parents"
    want = _table(source)
    assert _table(hmd) == want, "sequence count and coordinate pointers"
    # Motion switches (CUBE0's, PYRAMID5's stream-ID jumps, SWITCH's walk/run on its joint
    # MIMe's weights) come back through Blender too.
    assert _switching(hmd) == _switching(source), "pointers with stream-ID jumps"
    count = want[0]
    old_dev, new_dev = _devices(source), _devices(hmd)
    assert len(old_dev) == len(new_dev), "cameras and lights"
    for (p, v), (q, w) in zip(old_dev, new_dev):
        assert np.abs(p - q).max() <= UNITS and v @ w >= np.cos(np.radians(0.1)), (p, v, q, w)
    worst = 0.0
    for k in range(max(count, 1)):
        seq = k if count else None
        a, b = _hmd_worlds(source, seq), _hmd_worlds(hmd, seq)
        assert a.world.shape == b.world.shape
        worst = max(worst, _distance(a.world, b.world).max())
    assert worst <= UNITS, f"{name}: coordinates differ by up to {worst} in {FRAMES} updates"
    print(f"{name} through Blender: {len(old0.ids)} coordinates, {count} sequence(s), "
          f"{len(want[1])} coordinate pointers, {len(old_dev)} cameras/lights, worst {worst}")


@pytest.mark.parametrize("name", ["pyramid5", "star09"])
def test_hmd_key_moved_in_blender_changes_only_its_frames(through_blender, name):
    cases, results, out = through_blender
    case, got = cases[name], results[name]
    key = got["key"]
    frames, loops = _clip(out / f"{name}.glb")
    a, b = _hmd_worlds(case["source"], 0), _hmd_worlds(got["moved"][0], 0)
    d = _distance(a.world, b.world).max(axis=(1, 2, 3))
    changed = [int(f) for f in np.nonzero(d > UNITS)[0]]
    inside = {f for f in range(FRAMES)
              if key["previous"] < (f % frames if loops else f) < key["next"]}
    assert set(changed) <= inside, f"frames {changed} changed; the key touches {sorted(inside)}"
    c = case["move"]["id"]
    shift = np.abs(a.world[key["frame"], c, :3, 3] - b.world[key["frame"], c, :3, 3]).max()
    assert shift >= MOVED, f"coordinate {c} moved {shift} units at frame {key['frame']}"
    print(f"{name} key moved at frame {key['frame']}: updates {changed} changed (clip of "
          f"{frames}{', looping' if loops else ''}), coordinate {c} by {shift:.0f} units")


def _clip(glb_path):
    """The length in updates and the looping of the clip the export recorded for the first
    animation (`docs/extras.md`): a looping clip repeats the moved key."""
    data = glb_path.read_bytes()
    length = int.from_bytes(data[12:16], "little")
    hmd = json.loads(data[20:20 + length])["animations"][0]["extras"]["retroanim"]["hmd"]
    return int(hmd["frames"]), bool(hmd["loop"])
