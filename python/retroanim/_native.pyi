"""Type stubs of the compiled half of the retroanim package (see ``retroanim/__init__.py``)."""

from typing import Any, Dict, List, Optional, Tuple, Union

FORMATS: List[str]

class RetroanimError(Exception):
    """Base of every retroanim error."""

    message: str
    format: Optional[str]
    offset: Optional[int]

class MalformedError(RetroanimError):
    """The input breaks its format at byte ``offset``."""

class UnsupportedError(RetroanimError):
    """The input uses a feature retroanim does not read."""

class UnknownFormatError(RetroanimError):
    """No known format was recognised in the input."""

class LimitError(RetroanimError):
    """The input asks for more than the resource limits allow."""

    requested: int
    limit: int

class UnencodableError(RetroanimError):
    """A model cannot be written because a value does not fit its format.

    For a scene whose parts do not fit together, ``problems`` lists every problem as a
    ``(path, what)`` pair (e.g. ``("/nodes/1/mesh", "...")``); otherwise it is absent.
    """

    problems: list[tuple[str, str]]

class OptionError(RetroanimError):
    """An option does not apply or is out of range."""

    option: str

class ConversionError(RetroanimError):
    """retroanim offers no such conversion (``format`` → ``target``)."""

    target: str

class Finding:
    """One validation finding."""

    @property
    def severity(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]:
        """The finding as a ``findings`` entry of ``--json`` output: ``code``, ``severity``, ``offset``, ``message``."""

class Model:
    """A file read into its format's model."""

    @property
    def format(self) -> str:
        """The format name: ``"tod"``, ``"hmd"``, ``"tmd"``, ``"tim"``, ``"p3d"``, ``"mdd"``, ``"pc2"``."""
    def summary(self) -> Dict[str, Any]:
        """The line ``retroanim info --json`` prints, less ``path``: ``format``, ``ok``, the summary's fields, ``bytes`` (the input's size) and ``findings``."""
    def validate(self) -> List[Finding]:
        """Every validation finding (``retroanim validate``)."""
    def write(self) -> bytes:
        """The model in its own format: byte-identical to the input for an unedited file."""
    def to_json(self) -> str:
        """The whole model as JSON (``retroanim dump --json``); :func:`read` reads it back."""

def read(data: bytes, from_: Optional[str] = None) -> Model: ...
def read_file(path: str) -> bytes: ...
def targets(format: str) -> List[str]: ...
def play_tod(
    model: Model, tmd: Optional[Model], after: List[Model], first: int, last: Optional[int]
) -> Dict[str, Any]: ...
def play_hmd(
    model: Model,
    first: int,
    last: Optional[int],
    sequence: Optional[int] = None,
    stream_id: Optional[int] = None,
    speed: Optional[float] = None,
    intr_idx: Optional[int] = None,
    aframe: Optional[int] = None,
) -> Dict[str, Any]: ...
def play_mime(model: Model, tmd: Model, weights: List[int]) -> List[List[Tuple[int, int, int]]]: ...
def play_rtm(
    model: Model,
    phase: Optional[float] = None,
    step: bool = False,
    skeleton: Optional[str] = None,
) -> Dict[str, Any]: ...
def render_bytes(
    data: bytes,
    *,
    tmd: Optional[Model] = None,
    tim: List[Model] = ...,
    vram: bool = False,
    yaw: Optional[float] = None,
    pitch: Optional[float] = None,
    distance: Optional[float] = None,
    size: Optional[Tuple[int, int]] = None,
    frames: Optional[Tuple[int, int]] = None,
    fps: Optional[float] = None,
    background: Optional[Tuple[int, int, int]] = None,
    output: str = "png",
    sequence: Optional[int] = None,
    stream_id: Optional[int] = None,
    lod: Optional[float] = None,
    named: Optional[str] = None,
    weights: Optional[Dict[int, int]] = None,
    vdf: Optional[Model] = None,
    ndf: Optional[Model] = None,
) -> Tuple[bytes, int, List[Tuple[str, str]]]: ...

def convert_model(
    source: Union[Model, bytes],
    target: str,
    *,
    from_: Optional[str] = None,
    axes: Optional[str] = None,
    scale: Optional[float] = None,
    fps: Optional[float] = None,
    duration: Optional[float] = None,
    smooth: bool = False,
    tmd: Optional[Model] = None,
    after: List[Model] = ...,
    tim: List[Model] = ...,
    clut: Optional[int] = None,
    semi_transparent: bool = False,
    sequence: Optional[int] = None,
    stream_id: Optional[int] = None,
    speed: Optional[float] = None,
    lod: Optional[float] = None,
    base: Optional[Model] = None,
    animation: Optional[int] = None,
    name: Optional[str] = None,
    out: Optional[str] = None,
    intr_idx: Optional[int] = None,
    resolution: Optional[int] = None,
    bpp: Optional[int] = None,
    vram: Optional[Tuple[int, int]] = None,
    clut_at: Optional[Tuple[int, int]] = None,
    clt: Optional[Model] = None,
    skeleton: Optional[str] = None,
    vdf: Optional[Model] = None,
    ndf: Optional[Model] = None,
    mime_weights: Optional[List[List[int]]] = None,
    p3d: Optional[Model] = None,
    start: Optional[float] = None,
    rest: Optional[str] = None,
) -> Tuple[
    bytes,
    str,
    List[Tuple[str, str]],
    List[Tuple[str, str, bytes, Optional[str]]],
]: ...


class Find:
    """One asset the scanner found."""

    @property
    def path(self) -> str: ...
    @property
    def container(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def image_offset(self) -> Optional[int]: ...
    @property
    def format(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def status(self) -> str: ...
    def record(self) -> Dict[str, Any]: ...
    def data(self) -> bytes: ...
    def read(self) -> Model: ...

def scan(
    paths: List[str],
    formats: Optional[List[str]] = ...,
    align: int = ...,
    min_size: int = ...,
    report: Optional[str] = ...,
) -> Tuple[List[Find], Dict[str, Any]]: ...

def patch(
    image: str,
    replacements: List[Tuple[str, bytes]],
    out: str,
    force: bool = ...,
    dry_run: bool = ...,
) -> Dict[str, Any]: ...

class Assembly:
    """Assets put together (``retroanim.assemble``)."""

    def assets(self) -> List[Dict[str, Any]]:
        """One dict per asset: ``source``, ``format``, ``textures``, ``model``, ``textured``,
        ``untextured``."""
    def notes(self) -> List[Tuple[str, str]]:
        """What stays unmatched: ``(code, message)``."""
    def read(self, container: str, offset: int) -> Model:
        """The asset at ``container`` and ``offset`` read into its model."""

def assemble(paths: List[str]) -> Assembly: ...


class RsdSet:
    """An RSD set (RSD, PLY, MAT, GRP) read with ``read_rsd``."""

    def summary(self) -> Dict[str, Any]:
        """``retroanim info --json``'s fields, with ``ok`` and ``findings``."""
    def to_dict(self) -> Dict[str, Any]: ...
    def write(self) -> List[Tuple[str, bytes]]:
        """(name as the RSD gives it, ``""`` for the RSD; bytes) per file."""
    def convert(self, to: str) -> Tuple[bytes, List[Tuple[str, str]]]:
        """The set as ``"tmd"``, ``"gltf"``, ``"glb"`` or ``"json"``: (bytes, notes)."""

def read_rsd(path: Union[str, Any]) -> RsdSet:
    """Reads an RSD and the PLY, MAT, GRP and TIM files it names, from beside it."""
