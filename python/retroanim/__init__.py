"""retroanim: read, check, write, play back and convert the 3D animation data of old game engines.

PlayStation TOD/HMD/TMD/TIM, Operation Flashpoint / Arma P3D, MDD and PC2 point caches, with
glTF, PNG and JSON as export targets. A thin layer over the Rust library ``retroanim``: the same
readers, players and conversions the ``retroanim`` command line uses, with the same results.

>>> import retroanim
>>> model = retroanim.read("anim.tod")                 # doctest: +SKIP
>>> model.format, model.summary()["frames"]            # doctest: +SKIP
('tod', 42)

Functions: :func:`read`, :func:`play`, :func:`convert`, :func:`targets`, :func:`render`,
:func:`scan`, :func:`assemble`, :func:`patch`. Errors raise :class:`RetroanimError` subclasses
carrying ``format``, ``offset`` and ``message``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import (
    FORMATS,
    ConversionError,
    Find,
    Finding,
    LimitError,
    MalformedError,
    Model,
    OptionError,
    RetroanimError,
    RsdSet,
    UnencodableError,
    UnknownFormatError,
    UnsupportedError,
    read_rsd,
)

__all__ = [
    "FORMATS",
    "Asset",
    "Assembly",
    "Conversion",
    "ConversionError",
    "Extra",
    "Find",
    "Finding",
    "LimitError",
    "MalformedError",
    "Model",
    "Note",
    "OptionError",
    "Playback",
    "RetroanimError",
    "RsdSet",
    "read_rsd",
    "UnencodableError",
    "UnknownFormatError",
    "UnsupportedError",
    "Pairing",
    "SourceRef",
    "assemble",
    "convert",
    "patch",
    "play",
    "play_mime",
    "play_rtm",
    "read",
    "render",
    "Rendered",
    "scan",
    "ScanReport",
    "targets",
]

#: What names a file: a path (``str`` or ``os.PathLike``), its bytes, or a model already read.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Model]


def _bytes_of(source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    # Through the library's one limited reader (refuses oversized files before reading them).
    return _native.read_file(os.fspath(source))


def read(source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
         from_: Optional[str] = None) -> Model:
    """Reads a file (a path, or its bytes) into its format's model.

    The format is recognised from the content, or forced with ``from_`` (``"tod"``, ``"p3d"``,
    ... as ``retroanim --from`` takes it), e.g. for a damaged file whose magic number is gone.
    A JSON dump (``Model.to_json()``) reads back into its model.

    Raises :class:`MalformedError` (with ``.format``, ``.offset``, ``.message``) when the input
    breaks its format, :class:`UnknownFormatError` when no format is recognised, and
    :class:`OSError` when the path cannot be read. A ``.vdf``, ``.ndf`` or ``.clt`` file whose
    bytes begin no known format (these have no magic number) is read as its name says, as the
    CLI does.
    """
    data = _bytes_of(source)
    if from_ is None and not isinstance(source, (bytes, bytearray, memoryview)):
        named = _NAMED_BY_SUFFIX.get(Path(source).suffix.lower())
        if named is not None:
            try:
                return _native.read(data, None)
            except UnknownFormatError:
                return _native.read(data, named)
    return _native.read(data, from_)


#: Formats without a magic number, read by a file's suffix when its bytes name no format.
_NAMED_BY_SUFFIX = {".vdf": "vdf", ".ndf": "ndf", ".clt": "clt"}


def _path_of(source: Optional[Source]) -> Optional[Path]:
    """The file a source names, when it is a path (the run's inputs, which no output replaces)."""
    if source is None or isinstance(source, (Model, bytes, bytearray, memoryview)):
        return None
    return Path(source)


def _model(source: Source, from_: Optional[str] = None) -> Model:
    return source if isinstance(source, Model) else read(source, from_)


def targets(format: str) -> List[str]:
    """The formats a model of ``format`` converts to (its own format is always allowed too)."""
    return list(_native.targets(format))


@dataclass(frozen=True)
class Playback:
    """Per-frame world matrices of a played animation.

    ``world[f, n]`` is the 4 × 4 world matrix of node ``ids[n]`` at frame ``frames[f]``, mapping a
    node-space column vector ``(x, y, z, 1)`` to world space in PlayStation units: the upper
    3 × 3 is the console's rotation matrix divided by 4096 (exact in float64), the last column
    the translation. ``rotation`` (int16, × 4096) and ``translation`` (int32) hold the same
    numbers exactly as the console's fixed-point arithmetic produced them, equal to ``world.m`` and
    ``world.t`` in ``retroanim play --json``.

    Nodes are TOD object IDs (sorted) or HMD coordinate indices. A TOD object that does not exist
    at a frame has NaN in ``world``, zeros in ``rotation``/``translation``, ``present`` False.
    """

    format: str
    #: Frame numbers, shape (F,).
    frames: np.ndarray
    #: Node identifiers: TOD object IDs or HMD coordinate indices, length N.
    ids: List[int]
    #: float64 (F, N, 4, 4).
    world: np.ndarray
    #: int16 (F, N, 3, 3): the fixed-point rotation (4096 = 1.0).
    rotation: np.ndarray
    #: int32 (F, N, 3): the translation.
    translation: np.ndarray
    #: int64 (F, N): each node's parent ID (TOD) or coordinate index (HMD), -1 for none.
    parents: np.ndarray
    #: bool (F, N): the node exists at that frame.
    present: np.ndarray
    #: bool (F, N): the node is shown (TOD's object visibility; every HMD coordinate is True).
    visible: np.ndarray
    #: TOD: seconds one frame lasts (resolution × 1/60 s); None for HMD.
    seconds_per_frame: Optional[float]
    #: What playback could not do exactly (e.g. a packet the player ignores).
    notes: List[str] = field(default_factory=list)
    #: The raw per-frame data, as ``retroanim play --json`` prints it under ``frames``.
    raw: list = field(default_factory=list, repr=False)


def _frame_range(frames: Union[None, int, Tuple[int, int]]) -> Tuple[int, Optional[int]]:
    if frames is None:
        return 0, None
    if isinstance(frames, int):
        return frames, frames
    first, last = frames
    if first < 0 or last < first:
        raise _option_error("frames", f"{first}..{last}: the range is empty")
    return int(first), int(last)


def _playback(fmt: str, raw_frames: list, nodes_key: str, id_key: str,
              seconds_per_frame: Optional[float], notes: List[str]) -> Playback:
    ids = sorted({node[id_key] for f in raw_frames for node in f[nodes_key]})
    column = {i: n for n, i in enumerate(ids)}
    shape = (len(raw_frames), len(ids))
    rotation = np.zeros(shape + (3, 3), dtype=np.int16)
    translation = np.zeros(shape + (3,), dtype=np.int32)
    parents = np.full(shape, -1, dtype=np.int64)
    present = np.zeros(shape, dtype=bool)
    visible = np.zeros(shape, dtype=bool)
    for f, frame in enumerate(raw_frames):
        for node in frame[nodes_key]:
            n = column[node[id_key]]
            rotation[f, n] = node["world"]["m"]
            translation[f, n] = node["world"]["t"]
            parents[f, n] = -1 if node.get("parent") is None else node["parent"]
            present[f, n] = True
            visible[f, n] = node.get("visible", True)
    world = np.full(shape + (4, 4), np.nan)
    world[..., :3, :3] = rotation / 4096.0
    world[..., :3, 3] = translation
    world[..., 3, :] = (0.0, 0.0, 0.0, 1.0)
    world[~present] = np.nan
    return Playback(
        format=fmt,
        frames=np.array([f["frame"] for f in raw_frames], dtype=np.int64),
        ids=ids,
        world=world,
        rotation=rotation,
        translation=translation,
        parents=parents,
        present=present,
        visible=visible,
        seconds_per_frame=seconds_per_frame,
        notes=list(notes),
        raw=raw_frames,
    )


def play(model: Source, tmd: Optional[Source] = None, after: Iterable[Source] = (),
         frames: Union[None, int, Tuple[int, int]] = None, *, sequence: Optional[int] = None,
         stream_id: Optional[int] = None, speed: Optional[float] = None,
         intr_idx: Optional[int] = None, aframe: Optional[int] = None) -> Playback:
    """Plays a TOD or HMD animation as the console's libraries do; see :class:`Playback`.

    ``frames`` is one frame number or an inclusive ``(first, last)`` pair, as the CLI's
    ``--frame N`` / ``--frames A..B``. Without it a TOD plays to its end (refused with
    :class:`LimitError` when that is longer than the playback limit) and an HMD until every
    sequence has stopped, at most 600 frames.

    TOD only: ``tmd`` (the model it drives, for object TMD IDs), ``after`` (TODs played first on
    the same objects). HMD only: ``sequence``, ``stream_id``, ``speed`` (a multiple, 1.0 = the
    file's own), ``intr_idx`` and ``aframe`` (INTR IDX and AFRAME instead of the 0xFFFF Sony's
    programs set, as the CLI's ``--intr-idx`` / ``--aframe``). An option the format does not
    take raises :class:`OptionError`.
    """
    m = _model(model)
    first, last = _frame_range(frames)
    after = list(after)
    if m.format == "tod":
        for name, given in (("sequence", sequence), ("stream-id", stream_id), ("speed", speed),
                            ("intr-idx", intr_idx), ("aframe", aframe)):
            if given is not None:
                raise _option_error(name, "is for HMD animations; this is a TOD")
        out = _native.play_tod(m, None if tmd is None else _model(tmd),
                               [_model(a) for a in after], first, last)
        return _playback("tod", out["frames"], "objects", "id", out["seconds_per_frame"],
                         out["notes"])
    if m.format == "hmd":
        if tmd is not None or after:
            raise _option_error("tmd" if tmd is not None else "after",
                                "is for TOD animations; this is an HMD")
        out = _native.play_hmd(m, first, last, sequence=sequence, stream_id=stream_id,
                               speed=speed, intr_idx=intr_idx, aframe=aframe)
        return _playback("hmd", out["frames"], "coordinates", "index", None, [])
    raise _option_error("model", f"a {m.format} file; play needs a TOD or HMD animation")


def play_mime(diff: Source, tmd: Source, weights: Union[Sequence[int], Mapping[int, int]]
              ) -> List[np.ndarray]:
    """Plays MIMe differences (a VDF or NDF, a ``.vdf``/``.ndf`` path read by its name) onto
    their base ``tmd`` as the console computes them (``gteMIMefunc``'s fixed-point arithmetic),
    as ``retroanim play DIFF --tmd BASE --weights`` does. ``weights``: one integer per key
    (4096 = 1.0), or ``{key: weight}`` (the other keys 0). Returns one ``int16`` array of shape
    ``(n, 3)`` per TMD object: its vertices (an NDF: its normals)."""
    d = _model(diff)
    if isinstance(weights, Mapping):
        if d.format not in ("vdf", "ndf"):
            raise _option_error("model", f"a {d.format} model; play_mime needs a VDF or NDF")
        keys = d.summary()["blocks"]
        w = [0] * keys
        for k, v in weights.items():
            if not 0 <= int(k) < keys:
                raise _option_error("weights", f"key {k}, but the file has {keys} keys")
            w[int(k)] = int(v)
    else:
        w = [int(x) for x in weights]
    out = _native.play_mime(d, _model(tmd, "tmd"), w)
    return [np.array(o, dtype=np.int16).reshape(-1, 3) for o in out]


def play_rtm(model: Source, phase: Optional[float] = None, step: bool = False,
             skeleton: Optional[Union[str, os.PathLike]] = None) -> dict:
    """Plays an RTM (Arma animation): every frame, or only the pose at ``phase`` (0..1,
    interpolated as docs/rtm.md says); ``step`` adds phase × displacement to every bone, as the
    CLI's ``--step``; ``skeleton`` (the path of a ``model.cfg``, as ``--skeleton``) places the
    parent-relative bones of a binarised RTM (BMTR). Returns ``{"displacement": [x, y, z],
    "frames": [{"frame", "phase", "bones": [{"name", "matrix"}]}], "notes": [(code, message)]}``
    (``matrix``: 12 numbers, BI's layout), as ``play --json`` prints them."""
    text = None if skeleton is None else Path(skeleton).read_text(encoding="latin-1")
    return _native.play_rtm(_model(model), phase, step, text)


def _option_error(option: str, message: str) -> OptionError:
    e = OptionError(f"--{option}: {message}")
    e.option, e.message, e.format, e.offset = option, message, None, None
    return e


@dataclass(frozen=True)
class Note:
    """Something a conversion left out or could not carry exactly."""

    code: str
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Extra:
    """A file a conversion makes besides its output (glTF → TOD: the ``.tmd`` model and its
    TIMs; glTF → TMD: the TIMs): ``suffix`` follows the output's stem in its name (``.tmd``,
    ``_0.tim``), ``format`` and ``data`` as in :class:`Conversion`; ``path`` where it was
    written, when the conversion was given ``out``."""

    suffix: str
    format: str
    data: bytes
    path: Optional[Path] = None


@dataclass(frozen=True)
class Conversion:
    """A conversion's output: ``data`` (the file's bytes), its ``format``, ``notes``, and
    ``extra``, the files that go beside it (a list of :class:`Extra`, empty for most
    conversions)."""

    data: bytes
    format: str
    notes: List[Note]
    #: Where it was written, when ``out`` was given.
    path: Optional[Path] = None
    #: Files that go beside the output, written next to it when ``out`` was given.
    extra: List[Extra] = field(default_factory=list)


def _write_outputs(outputs, inputs, force: bool) -> None:
    """Writes ``(path, data, named)`` outputs through the library's output rule (the one the
    CLI uses; docs/safety.md): all are checked before the first is written, each atomically,
    never over a FIFO, device or folder, never over one of ``inputs`` (unless ``named`` and
    ``force``), over an existing file only with ``force``."""
    _native.write_outputs([(os.fspath(p), bytes(d), n) for p, d, n in outputs],
                          [os.fspath(i) for i in inputs if i is not None], force)


def convert(source: Source, target: str, out: Union[None, str, "os.PathLike[str]"] = None, *,
            from_: Optional[str] = None, axes: Optional[str] = None,
            scale: Optional[float] = None, fps: Optional[float] = None,
            duration: Optional[float] = None, smooth: bool = False,
            tmd: Optional[Source] = None, after: Sequence[Source] = (),
            tim: Sequence[Source] = (), clut: Optional[int] = None,
            semi_transparent: bool = False, sequence: Optional[int] = None,
            stream_id: Optional[int] = None, speed: Optional[float] = None,
            lod: Optional[float] = None, base: Optional[Source] = None,
            animation: Optional[int] = None, name: Optional[str] = None,
            intr_idx: Optional[int] = None, resolution: Optional[int] = None,
            bpp: Optional[int] = None, vram: Optional[Tuple[int, int]] = None,
            clut_at: Optional[Tuple[int, int]] = None,
            clt: Optional[Source] = None,
            skeleton: Optional[Union[str, os.PathLike]] = None,
            vdf: Optional[Source] = None, ndf: Optional[Source] = None,
            mime_weights: Optional[Sequence[Sequence[int]]] = None,
            p3d: Optional[Source] = None,
            start: Optional[float] = None, rest: Optional[str] = None,
            force: bool = False) -> Conversion:
    """Converts a file or model to ``target`` (``"glb"``, ``"gltf"``, ``"mdd"``, ``"pc2"``,
    ``"p3d"``, ``"png"``, ``"tmd"``, ``"tod"``, ``"json"``, or the source's own format), as
    ``retroanim convert`` does. glTF/GLB sources (→ TMD, TOD, P3D) are given as a path or bytes.

    The options are the library's (and the CLI's ``--axes`` ... ``--animation``): ``axes``
    (``"default"`` or ``"raw"``), ``scale``, ``fps``, ``duration``, ``smooth``, ``tmd``, ``after``,
    ``tim``, ``clut``, ``semi_transparent``, ``sequence``, ``stream_id``, ``speed``, ``lod``,
    ``base``, ``animation`` (glTF → TOD/P3D: which glTF animation), ``intr_idx`` (HMD → glTF,
    as ``--intr-idx``), ``resolution`` (glTF → TOD: ticks per frame), ``bpp``, ``vram`` and
    ``clut_at`` (PNG → TIM: depth 4/8/16, the image's and the CLUT's VRAM ``(x, y)``, as ``--bpp``,
    ``--vram`` and ``--clut X,Y``), ``clt`` (PXL → TIM/PNG: the palette, a CLT; a headerless one
    read with ``read(path, from_="clt")``; else the first ``tim``'s CLUT); ``skeleton`` (RTM → glTF: the path of a ``model.cfg`` whose
    ``CfgSkeletons`` give the bone hierarchy, as ``--skeleton``); ``vdf`` and ``ndf`` (TMD → glTF:
    MIMe vertex and normal differences as morph targets, as ``--vdf``/``--ndf``; paths and bytes
    are read as VDF/NDF) and ``mime_weights`` (frames of one integer weight per key, 4096 = 1.0:
    a weights animation, as ``--mime-weights``); glTF → ``"vdf"``/``"ndf"`` takes the base ``tmd``;
    ``p3d`` (RTM → glTF: the MLOD or ODOL model whose LOD, ``lod`` or the first naming a bone,
    becomes a mesh skinned to the bones, as ``--p3d``); ``start`` and ``rest`` (glTF → RTM: the animation
    time of phase 0, and ``"origin"`` or ``"bind"``, the pose the matrices are relative to, as
    ``--start`` and ``--rest``); ``name`` names the output scene. Files an option
    names may be paths, bytes or models. An option the conversion does
    not read raises :class:`OptionError` naming it; a conversion retroanim does not offer raises
    :class:`ConversionError`.

    Some conversions make more than one file (glTF → TOD: the TOD, and a ``.tmd`` model with
    its TIMs unless ``tmd`` is given); those are in the result's ``extra``. With ``out`` the
    output is also written there, and each extra file beside it, named as the CLI names them
    (``out.tod`` → ``out.tmd``, ``out_0.tim``), under the library's output rule
    (docs/safety.md): atomically, never over a FIFO, device or folder, never over the input or
    a file an option names (``out`` itself only with ``force``), over an existing file only
    with ``force`` (one that already holds the bytes is left as it is); all are checked before
    the first is written. Returns a :class:`Conversion`; what the output leaves out is
    in its ``notes``.
    """
    path = None if isinstance(source, (Model, bytes, bytearray, memoryview)) else Path(source)
    src = source if isinstance(source, Model) else _bytes_of(source)
    out_path = None if out is None else Path(out)
    if name is None and out_path is not None and target.lower().lstrip(".") == "rsd":
        # As the CLI does: an RSD names its parts after the output (out.rsd → out.ply, out.mat).
        name = out_path.stem
    if name is None and path is not None:
        # As the CLI does: the output scene (an RTM's, a point cache's) is named after its
        # file, an extracted find as the find it was cut from.
        name = _native.scene_name(os.fspath(path))
    data, fmt, notes, extras = _native.convert_model(
        src, target, from_=from_, axes=axes, scale=scale, fps=fps, duration=duration,
        smooth=smooth, tmd=None if tmd is None else _model(tmd), after=[_model(a) for a in after],
        tim=[_model(t) for t in tim], clut=clut, semi_transparent=semi_transparent,
        sequence=sequence, stream_id=stream_id, speed=speed, lod=lod,
        base=None if base is None else _model(base), animation=animation, name=name,
        out=None if out_path is None else os.fspath(out_path), intr_idx=intr_idx,
        resolution=resolution, bpp=bpp, vram=vram, clut_at=clut_at,
        clt=None if clt is None else _model(clt),
        skeleton=None if skeleton is None else Path(skeleton).read_text(encoding="latin-1"),
        vdf=None if vdf is None else _model(vdf, "vdf"),
        ndf=None if ndf is None else _model(ndf, "ndf"),
        mime_weights=None if mime_weights is None else [[int(w) for w in f] for f in mime_weights],
        p3d=None if p3d is None else _model(p3d), start=start, rest=rest)
    extra = [Extra(suffix=s, format=f, data=d) for s, f, d, _ in extras]
    if out_path is not None:
        inputs = [path] + [_path_of(o) for o in (tmd, base, vdf, ndf, p3d, *after, *tim)]
        _write_outputs([(out_path, data, True)] + [(beside, d, False) for _, _, d, beside in extras],
                       inputs, force)
        extra = [Extra(suffix=s, format=f, data=d, path=Path(beside)) for s, f, d, beside in extras]
    return Conversion(data=data, format=fmt, notes=[Note(c, m) for c, m in notes],
                      path=out_path, extra=extra)


@dataclass(frozen=True)
class Rendered:
    """A picture :func:`render` drew: the file's ``data``, how many ``frames`` it holds, the
    ``notes`` (what it leaves out) and the ``path`` it was written to."""

    data: bytes
    frames: int
    notes: List[Note]
    path: Path


def render(input: Union[str, "os.PathLike[str]", bytes], output: Union[str, "os.PathLike[str]"], *,
           tmd: Optional[Source] = None, tim: Sequence[Source] = (), vram: bool = False,
           yaw: Optional[float] = None, pitch: Optional[float] = None,
           distance: Optional[float] = None, size: Optional[Tuple[int, int]] = None,
           frames: Optional[Tuple[int, int]] = None, fps: Optional[float] = None,
           background: Optional[Tuple[int, int, int]] = None,
           sequence: Optional[int] = None, stream_id: Optional[int] = None,
           lod: Optional[float] = None, weights: Optional[Mapping[int, int]] = None,
           vdf: Optional[Source] = None, ndf: Optional[Source] = None,
           force: bool = False) -> Rendered:
    """Draws ``input`` as the PlayStation draws it and writes the picture to ``output``
    atomically, as ``retroanim render`` does: a TMD (textured from ``tim``), a TOD with its
    ``tmd`` (an animation; ``frames=(a, b)`` TOD frames a..b-1, ``fps``), a MIMe VDF/NDF on
    its base ``tmd`` (``weights={key: weight}``, 4096 = 1.0, as ``--weights``: one picture at
    those weights; without, one picture per key, ``frames`` picking keys; a VDF's ``ndf`` or an
    NDF's ``vdf`` plays with it), an HMD (at rest, or
    its ``sequence`` from ``stream_id`` animated), a P3D LOD (``lod`` by resolution; animated
    when it has frames), a glTF/GLB (animated by its first animation), a TIM, or a raw 1 MB
    VRAM dump with ``vram=True``. The output's extension chooses the file: ``.png`` (animated
    PNG), ``.gif`` (animated GIF) or ``.webp`` (lossless; animated WebP). ``yaw``/``pitch`` in
    degrees, ``distance`` a multiple of the framing distance, ``size=(w, h)``,
    ``background=(r, g, b)``. Options the input does not use raise :class:`OptionError`. The
    picture is written under the output rule (as :func:`convert`'s ``out``): an existing file
    only with ``force``."""
    src = None if isinstance(input, (bytes, bytearray, memoryview)) else Path(input)
    out = Path(output)
    ext = out.suffix.lower().lstrip(".")
    named = None if src is None else _NAMED_BY_SUFFIX.get(src.suffix.lower())
    data, n, notes = _native.render_bytes(
        _bytes_of(input), tmd=None if tmd is None else _model(tmd),
        tim=[_model(t) for t in tim], vram=vram, yaw=yaw, pitch=pitch, distance=distance,
        size=size, frames=frames, fps=fps, background=background,
        output="png" if ext == "apng" else ext, sequence=sequence, stream_id=stream_id, lod=lod,
        named=named if named in ("vdf", "ndf") else None,
        weights=None if weights is None else dict(weights),
        vdf=None if vdf is None else _model(vdf, "vdf"),
        ndf=None if ndf is None else _model(ndf, "ndf"))
    _write_outputs([(out, data, True)],
                   [src, _path_of(tmd), _path_of(vdf), _path_of(ndf), *(_path_of(t) for t in tim)],
                   force)
    return Rendered(data=data, frames=n, notes=[Note(c, m) for c, m in notes], path=out)


@dataclass(frozen=True)
class ScanReport:
    """What :func:`scan` found: ``finds`` (a list of :class:`Find`, each with ``path``,
    ``container``, ``offset``, ``image_offset``, ``format``, ``size``, ``status``, and
    ``record()``, ``data()``, ``read()``) and ``summary``, the dict of ``retroanim scan --json``'s
    last line (``finds``, ``formats``, ``bytes_scanned``, ``candidates``, ``rejected``,
    ``skipped``, ``errors``...)."""

    finds: List[Find]
    summary: dict


def scan(paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]], *,
         formats: Optional[Iterable[str]] = None, align: int = 4,
         min_size: int = 0,
         report: Union[str, "os.PathLike[str]", None] = None,
         force: bool = False) -> ScanReport:
    """Finds every TOD, HMD, TMD, TIM and P3D inside files, folders (recursively), disc images
    (ISO 9660, raw 2352-byte ``.bin``, ``.cue``), PBO archives, emulator savestates
    (PCSX-ReARMed, PCSX-R: their RAM is scanned as ``STATE:/RAM``, their VRAM textures the
    models found there) and blobs, as ``retroanim scan`` does. ``formats`` narrows the search (``["tod", "tmd"]``), ``align`` is the offset step in
    blobs (4 by default, 1 for byte-packed archives), finds smaller than ``min_size`` bytes are
    dropped. Containers that cannot be walked do not raise: they are in ``summary["errors"]``
    with their byte offset, and the rest of the scan goes on. The scan runs without holding the
    GIL.

    With ``report=DIR`` it also writes the report a browser opens, as ``retroanim scan
    --report DIR`` does: ``DIR/index.html`` (a card per find with its picture, filters, search)
    and ``DIR/index.json``, with each find's bytes, GLB and PNG beside them;
    ``summary["report"]`` then holds ``index`` (the page's path), ``assets``, ``files`` and
    ``notes``. A report that cannot be written raises :class:`RetroanimError`; ``DIR`` must be
    new or empty unless ``force`` (then the report's own files in it are replaced; a scanned
    file never is).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names = [os.fspath(p) for p in paths]
    finds, summary = _native.scan(
        names, formats=None if formats is None else list(formats), align=align,
        min_size=min_size, report=None if report is None else os.fspath(report), force=force)
    return ScanReport(finds=list(finds), summary=summary)


@dataclass(frozen=True)
class SourceRef:
    """Where an asset is, as ``index.json`` names it: ``path`` (the input it was found under, a
    file or the folder or image scanned), ``container`` (the file holding it: the input's file,
    or ``input:/PATH/IN/IMAGE`` inside a disc image or archive), ``offset`` and ``size`` in
    bytes."""

    path: str
    container: str
    offset: int
    size: int

    @staticmethod
    def _of(d: dict) -> "SourceRef":
        return SourceRef(path=d["path"], container=d["container"], offset=d["offset"],
                         size=d["size"])


@dataclass(frozen=True)
class Pairing:
    """An asset paired with another: a TIM texturing a model, or the model an animation drives.

    ``source`` is where the paired asset is and ``confidence`` how sure the pairing is, 0..1;
    below 0.5 a pairing is a candidate shown to the user, never used. ``alternatives`` are the
    other assets that could take its place, best first (for textures: TIMs holding the same
    texels, e.g. loaded at the same VRAM place at different times). Textures also say how many
    textured ``polygons`` they texture and their ``cover``: ``"covers"`` (the TIM holds every
    texel the polygons sample) or ``"overlaps"`` (it only lies in their texture page)."""

    source: SourceRef
    confidence: float
    alternatives: List["Pairing"] = field(default_factory=list)
    polygons: Optional[int] = None
    cover: Optional[str] = None


@dataclass(frozen=True)
class Asset:
    """One asset of an :class:`Assembly` and its pairings, with the vocabulary of ``retroanim
    scan --report``'s ``index.json``.

    ``textures`` (models: TMD, HMD) are the TIMs that texture it, in the order the glTF export
    takes them; ``model`` (animations: TOD) is the TMD it drives when one has confidence 0.5 or
    more, else ``None``; ``alternatives`` are the other model candidates (all of them when none
    is used), best first. ``textured`` counts the polygons that need a TIM (TMD triangles, HMD
    packets its own images miss) and ``untextured`` those no TIM holds. MIMe differences (VDF,
    NDF): ``model`` is the base TMD their blocks fit, ``partner`` the file of the other kind
    that goes with them (a VDF's NDF, an NDF's VDF), else ``None``."""

    source: SourceRef
    format: str
    textures: List[Pairing]
    model: Optional[Pairing]
    alternatives: List[Pairing]
    textured: int
    untextured: int
    partner: Optional[SourceRef] = None

    @staticmethod
    def _of(d: dict) -> "Asset":
        textures = [
            Pairing(source=SourceRef._of(t["source"]), confidence=t["confidence"],
                    alternatives=[Pairing(SourceRef._of(a["source"]), a["confidence"])
                                  for a in t["alternatives"]],
                    polygons=t["polygons"], cover=t["cover"])
            for t in d["textures"]
        ]
        model, alternatives = None, []
        m = d.get("model")
        if m is not None:
            candidates = [Pairing(SourceRef._of(c["source"]), c["confidence"])
                          for c in m["candidates"]]
            if m["used"]:
                model = Pairing(SourceRef._of(m["source"]), m["confidence"])
                alternatives = [c for c in candidates if c.source != model.source]
            else:
                alternatives = candidates
        partner = d.get("partner")
        return Asset(source=SourceRef._of(d["source"]), format=d["format"], textures=textures,
                     model=model, alternatives=alternatives, textured=d["textured"],
                     untextured=d["untextured"],
                     partner=None if partner is None else SourceRef._of(partner))


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(a) == os.path.normpath(b)


@dataclass(frozen=True)
class Assembly:
    """What :func:`assemble` put together: ``assets`` (one :class:`Asset` per find, in the
    scan's order) and ``notes``, what stays unmatched (:class:`Note` with ``code``
    ``untextured-polygons``, ``no-model``, ``model-unsure``, ``no-base``, ``base-unsure``,
    ``tim-unused`` or ``unreadable``;
    each message opens with its count)."""

    assets: List[Asset]
    notes: List[Note]
    _handle: object = field(default=None, repr=False, compare=False)

    def asset(self, container: Union[str, "os.PathLike[str]"], offset: int = 0) -> Optional[Asset]:
        """The asset at ``offset`` in ``container`` (a path naming the same file also finds it,
        e.g. the TMD a user picked), or ``None``."""
        name = os.fspath(container)
        for a in self.assets:
            if a.source.offset == offset and a.source.container == name:
                return a
        for a in self.assets:
            if a.source.offset == offset and _same_file(a.source.container, name):
                return a
        return None

    def read(self, source: Union[SourceRef, Pairing, Asset]) -> Model:
        """The asset at ``source`` (a :class:`SourceRef`, or a :class:`Pairing` or
        :class:`Asset` naming one) read into its format's model, from the disc image or
        archive it is in when it is in one."""
        if not isinstance(source, SourceRef):
            source = source.source
        return self._handle.read(source.container, source.offset)

    def tims_for(self, asset: Asset) -> List[Model]:
        """The TIMs chosen for ``asset``, read, in the order the glTF export takes them: give
        them as :func:`convert`'s ``tim`` to texture each polygon with the TIM chosen for it."""
        return [self.read(t) for t in asset.textures]


def assemble(paths: Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]]
             ) -> Assembly:
    """Puts the assets of files, folders (recursively), disc images and archives together as the
    console would have them, as ``retroanim convert -r`` and ``scan --report`` do: each TIM is
    placed in a model of the console's VRAM at its own image and CLUT positions; a textured TMD
    or HMD polygon's texture page, colour depth, CLUT position and UVs name the texels it
    samples, and the TIMs holding them are its textures (ranked when several do: same
    container, nearest folder, nearest offset, name). Each TOD is paired with the TMDs holding
    every object it names, ranked by evidence (object count, place, name stem), each with a
    confidence 0..1; below 0.5 a candidate is listed, never used. Returns an
    :class:`Assembly`. The scan and matching run without holding the GIL; containers that
    cannot be read are left out, as :func:`scan` leaves them out."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    handle = _native.assemble([os.fspath(p) for p in paths])
    return Assembly(assets=[Asset._of(d) for d in handle.assets()],
                    notes=[Note(c, m) for c, m in handle.notes()], _handle=handle)


def patch(image: Union[str, "os.PathLike[str]"],
          replacements: Iterable[Tuple[str, Union[str, "os.PathLike[str]", bytes, bytearray]]],
          out: Union[str, "os.PathLike[str]"], *, force: bool = False,
          dry_run: bool = False) -> dict:
    """Puts assets back into a disc image (ISO 9660, raw ``.bin`` with or without its ``.cue``),
    a PBO archive or a file, as ``retroanim patch`` does, writing ``out`` (the image is never
    modified). Each replacement is ``(place, new)``: ``place`` a find's place as ``scan`` prints
    it (``"/DATA/PACK.BIN+4096"``: container without the image's name, ``+``, offset), ``new``
    the new file's bytes or path. The new bytes must be a valid file of the kind found there
    unless ``force``. Returns a dict: ``changes`` (``place``, ``format``, ``old_size``,
    ``new_size``, ``how``), ``notes``, ``grown`` (bytes the image grew by), ``written`` (paths).
    Raises :class:`RetroanimError` (nothing written) when a place names no find (the nearest are
    listed) or a larger asset cannot grow where it is.
    """
    reps = [(place, _bytes_of(new)) for place, new in replacements]
    return _native.patch(os.fspath(image), reps, os.fspath(out), force=force, dry_run=dry_run)
