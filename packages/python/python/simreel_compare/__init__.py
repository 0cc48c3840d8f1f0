"""Golden-image comparison from Python: runs the ``simreel-compare`` binary that this package
installs as a script (``bin/`` of the environment, ``Scripts\\`` on Windows) and reads the
``summary.json`` it writes.

>>> from simreel_compare import compare
>>> result = compare("goldens/button.png", "shots/button.png", out="out")
>>> result.match, result.reason, result.report
(False, 'FAIL button.png: different: 1412 pixels beyond 2 levels ...', PosixPath('.../out/compare-report/report.html'))
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

__all__ = ["CompareError", "Result", "binary_path", "compare", "__version__"]

try:
    from importlib.metadata import PackageNotFoundError, version as _version

    try:
        __version__ = _version("simreel-compare")
    except PackageNotFoundError:  # imported from a source checkout
        __version__ = "0.0.0"
except ImportError:  # pragma: no cover
    __version__ = "0.0.0"

ENV_BIN = "SIMREEL_COMPARE_BIN"
_EXE = "simreel-compare.exe" if os.name == "nt" else "simreel-compare"

PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


class CompareError(Exception):
    """The comparator could not compare (exit code 2: bad input or options; 1: anything else), or
    could not be found or run. ``stderr`` holds what it said."""

    def __init__(self, message: str, exit_code: Optional[int] = None, stderr: str = "", stdout: str = "") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr
        self.stdout = stdout


@dataclass(frozen=True)
class Result:
    """What a comparison found."""

    #: True when the pictures agree within the tolerance (exit code 0).
    match: bool
    #: The comparator's verdict line for the image, e.g.
    #: ``FAIL button.png: different: 1412 pixels beyond 2 levels ...``.
    reason: str
    #: The absolute path of ``report.html``.
    report: Path
    #: The parsed ``summary.json`` (``checked``, ``failed``, ``frames`` with each file's verdict,
    #: differing pixels, regions...).
    summary: Dict[str, Any]
    #: 0 (match) or 4 (differ).
    exit_code: int


def _script_dirs() -> List[Path]:
    """Where an installer puts this package's scripts: the environment's, then the user's."""
    dirs: List[Path] = []
    candidates = [sysconfig.get_path("scripts")]
    try:
        user_scheme = sysconfig.get_preferred_scheme("user")  # type: ignore[attr-defined]
    except AttributeError:  # Python < 3.10
        user_scheme = "nt_user" if os.name == "nt" else "posix_user"
    try:
        candidates.append(sysconfig.get_path("scripts", user_scheme))
    except KeyError:  # pragma: no cover
        pass
    candidates.append(str(Path(sys.executable).parent))
    for d in candidates:
        if d and Path(d) not in dirs:
            dirs.append(Path(d))
    return dirs


def binary_path() -> str:
    """The binary :func:`compare` runs: ``$SIMREEL_COMPARE_BIN`` where set, else the one installed
    with this package (the interpreter's scripts directory), else ``simreel-compare`` on ``PATH``."""
    override = os.environ.get(ENV_BIN)
    if override:
        if not Path(override).is_file():
            raise CompareError(f"{ENV_BIN} is set to {override}, which is not a file")
        return override
    for d in _script_dirs():
        candidate = d / _EXE
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(_EXE)
    if found:
        return found
    raise CompareError(
        f"cannot find the {_EXE} binary: it is not in {', '.join(str(d) for d in _script_dirs())} "
        f"nor on PATH. Reinstall the simreel-compare wheel for this platform, or set {ENV_BIN} "
        "to the binary's path."
    )


_MAGIC = (
    (b"\x89PNG", ".png"),
    (b"\xff\xd8\xff", ".jpg"),
    (b"BM", ".bmp"),
    (b"II*\x00", ".tiff"),
    (b"MM\x00*", ".tiff"),
)


def _extension(data: bytes) -> str:
    """An extension that says what the bytes are (the comparator reads the content, not the name)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    for magic, ext in _MAGIC:
        if data.startswith(magic):
            return ext
    return ".img"


def _name_of(expected: PathOrBytes, actual: PathOrBytes, name: Optional[str]) -> str:
    """The name bytes are compared under: ``name``, else the file name of the side that is a path
    ("button.png"), else "image"."""
    if name is None:
        named = [v for v in (expected, actual) if isinstance(v, (str, os.PathLike))]
        name = Path(named[0]).name if named else "image"
    name = str(name)
    if name in ("", ".", "..") or "/" in name or "\\" in name:
        raise ValueError(f"name: {name!r} is not a file name (no folders)")
    return name


def _file_for(value: PathOrBytes, side: str, out: Path, name: str) -> str:
    """A path for ``value``: itself when it is one, else a file holding the bytes in
    ``<out>/inputs/<side>/<name>`` (with an extension that says what they are when the name has
    none), kept with the report, whose accept command copies from it."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        folder = out / "inputs" / side
        folder.mkdir(parents=True, exist_ok=True)
        file = folder / (name if Path(name).suffix else name + _extension(data))
        file.write_bytes(data)
        return str(file)
    if isinstance(value, (str, os.PathLike)):
        return str(Path(value).resolve())
    raise TypeError(f"{side}: expected a path or bytes, got {type(value).__name__}")


def _reason(summary: Dict[str, Any], output: str) -> str:
    """The binary's verdict line for the image; for folders, those of the files that failed, or
    the final line when all match."""
    lines = [line for line in output.splitlines() if line.strip()]
    frames = summary.get("frames") or []

    def line_of(frame: Dict[str, Any]) -> str:
        verdict = frame.get("verdict") or ""
        for line in lines:
            if verdict and line.endswith(f": {verdict}"):
                return line
        return f"{'pass' if frame.get('passed') else 'FAIL'} {frame.get('path', '')}: {verdict}"

    if len(frames) == 1:
        return line_of(frames[0])
    failed = [f for f in frames if not f.get("passed")]
    if failed:
        return "\n".join(line_of(f) for f in failed)
    return lines[-1] if lines else f"{len(frames)} compared images match"


def _whole(value: Any) -> Any:
    """A whole number given as a float (1e9) as the integer the comparator reads."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def compare(
    expected: PathOrBytes,
    actual: PathOrBytes,
    *,
    channel: Optional[int] = None,
    max_pixels: Union[int, float, str, None] = None,
    max_region: Optional[int] = None,
    flip_mean: Optional[float] = None,
    flip_p99: Optional[float] = None,
    tolerance: Union[str, "os.PathLike[str]", None] = None,
    out: Union[str, "os.PathLike[str]", None] = None,
    threads: Optional[int] = None,
    timeout: Optional[float] = None,
    name: Optional[str] = None,
) -> Result:
    """Compares ``expected`` with ``actual`` (paths, or bytes written to
    ``<out>/inputs/<side>/<name>`` first and kept with the report).

    Returns a :class:`Result` whether or not they match; raises :class:`CompareError` when the
    comparator could not compare them (exit code 2 or 1), with its stderr.

    ``channel``: a pixel differs when a channel moves by more than this (default 2).
    ``max_pixels``: how many pixels may differ, anti-aliasing along an edge not counted (every
    pixel with ``channel=0``): a count (an int, 40) or a share (a float,
    0.001, or a string, "0.1%"; 1.0 is all of them).
    ``max_region``: a compact region of change weighing more than this fails (default 4).
    ``flip_mean``, ``flip_p99``: the perceptual (FLIP) layer's limits (default off).
    ``tolerance``: a TOML file of those keys; the arguments override it.
    ``out``: the report goes to ``<out>/compare-report/`` (default ``out`` in the current directory).
    ``threads``: worker threads (default one per core). ``timeout``: seconds, for subprocess.
    ``name``: the file name bytes are compared under (default: the other side's file name, else
    "image"), which the verdict and the report show.
    """
    binary = binary_path()
    out_dir = Path("out" if out is None else out).resolve()
    shown = _name_of(expected, actual, name)
    # bytes stay in <out>/inputs/ with the report, whose accept command copies them
    args = [binary, "compare", _file_for(expected, "expected", out_dir, shown), _file_for(actual, "actual", out_dir, shown)]
    args += ["--out", str(out_dir)]
    for flag, value in (
        ("--channel", _whole(channel)),
        ("--max-pixels", max_pixels),
        ("--max-region", _whole(max_region)),
        ("--flip-mean", flip_mean),
        ("--flip-p99", flip_p99),
        ("--tolerance", None if tolerance is None else Path(tolerance).resolve()),
        ("--threads", _whole(threads)),
    ):
        if value is not None:
            args += [flag, str(value)]
    try:
        proc = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
    except OSError as e:
        raise CompareError(f"cannot run {binary}: {e}") from e
    if proc.returncode not in (0, 4):
        why = f"was stopped by signal {-proc.returncode}" if proc.returncode < 0 else f"exited with code {proc.returncode}"
        detail = proc.stderr.strip()
        raise CompareError(
            f"simreel-compare {why}" + (f": {detail}" if detail else ""),
            exit_code=proc.returncode,
            stderr=proc.stderr,
            stdout=proc.stdout,
        )
    report_dir = out_dir / "compare-report"
    summary_file = report_dir / "summary.json"
    try:
        summary = json.loads(summary_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CompareError(
            f"simreel-compare exited with code {proc.returncode} but {summary_file} cannot be read: {e}",
            exit_code=proc.returncode,
            stderr=proc.stderr,
            stdout=proc.stdout,
        ) from e
    return Result(
        match=proc.returncode == 0,
        reason=_reason(summary, proc.stdout + "\n" + proc.stderr),
        report=report_dir / "report.html",
        summary=summary,
        exit_code=proc.returncode,
    )

