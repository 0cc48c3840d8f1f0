"""The pytest plugin of simreel-compare (registered by the wheel's ``pytest11`` entry point):
the ``assert_golden`` and ``screenshot`` fixtures and the ``--update-goldens`` option.

``assert_golden(png, name, **options)`` compares a PNG (bytes or a path) with
``goldens/<name>.png`` in the test file's folder. A missing golden is written and the test fails
saying so; a differing one fails with the comparator's verdict and the report's path, and the
picture is left beside the golden as ``goldens/<name>.new.png``, a pending image that
``simreel-compare review --pending <folder>`` accepts or rejects (nothing is left pending on CI).
``UPDATE_GOLDENS=1`` or ``pytest --update-goldens`` writes new and changed goldens instead of
failing. The picture and the report go to ``test-results/<test>/`` under pytest's root folder.

``screenshot(page=None, *, html=None, width=320, height=200)`` is the PNG of a page as the
system's headless Chromium renders it (``$CHROMIUM``, else chromium, chromium-browser or
google-chrome on ``PATH``): a file (relative to the test file's folder) or URL, or ``html`` text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Optional, Union

import pytest

from . import Result, compare

BROWSERS = ("chromium", "chromium-browser", "google-chrome-stable", "google-chrome")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("simreel-compare")
    group.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="assert_golden writes new and changed goldens instead of failing (as UPDATE_GOLDENS=1)",
    )


def on_ci() -> bool:
    """Whether the tests run on CI: ``CI`` set to anything but "", 0 or false."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def _updating(config: pytest.Config) -> bool:
    return os.environ.get("UPDATE_GOLDENS") == "1" or bool(config.getoption("update_goldens", False))


def _file_name(name: str) -> str:
    if not isinstance(name, str) or name in ("", ".", "..") or re.search(r"[\\/]", name):
        raise ValueError(f"{name!r} is not a golden's name: a file name without folders")
    file = name if name.lower().endswith(".png") else f"{name}.png"
    if file.lower().endswith(".new.png"):
        raise ValueError(f"{name!r} ends in .new, which marks pending images")
    return file


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


@pytest.fixture
def assert_golden(request: pytest.FixtureRequest) -> Callable[..., Optional[Result]]:
    """``assert_golden(png, name, **options)``: fails unless ``png`` (bytes or a path) matches
    goldens/<name>.png beside the test file (options: simreel_compare.compare's, e.g.
    max_pixels=0). Returns the comparison's Result (None when it wrote a new golden)."""
    goldens = Path(request.path).parent / "goldens"
    results = Path(request.config.rootpath) / "test-results" / re.sub(r"[^\w.-]+", "_", request.node.nodeid)
    update = _updating(request.config)

    def check(png: Union[bytes, str, os.PathLike], name: str, **options) -> Optional[Result]:
        file = _file_name(name)
        golden, pending = goldens / file, goldens / (file[: -len(".png")] + ".new.png")
        results.mkdir(parents=True, exist_ok=True)
        actual = results / file
        actual.write_bytes(png if isinstance(png, (bytes, bytearray)) else Path(png).read_bytes())
        if not golden.exists():
            goldens.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(actual, golden)
            pending.unlink(missing_ok=True)
            if update:
                return None
            pytest.fail(
                f"the golden {_shown(golden)} did not exist: it was written from this screenshot. Look at it, "
                "commit it and run the test again (UPDATE_GOLDENS=1 or --update-goldens writes new goldens "
                "without failing).",
                pytrace=False,
            )
        options.pop("out", None)
        result = compare(golden, actual, out=results / f"{Path(file).stem}-compare", **options)
        if result.match:
            pending.unlink(missing_ok=True)
            return result
        if update:
            shutil.copyfile(actual, golden)
            pending.unlink(missing_ok=True)
            return result
        if on_ci():
            after = f"  on CI nothing is left pending: the screenshot is {actual}"
        else:
            shutil.copyfile(actual, pending)
            after = (
                f"  pending: {_shown(pending)}\n"
                f"  review: simreel-compare review --pending {_shown(goldens)} (or UPDATE_GOLDENS=1 pytest)"
            )
        pytest.fail(
            f"the screenshot differs from the golden {_shown(golden)}\n  {result.reason}\n  report: {result.report}\n{after}",
            pytrace=False,
        )

    return check


def chromium() -> str:
    """The browser ``screenshot`` runs: $CHROMIUM, else the first of BROWSERS on PATH."""
    configured = os.environ.get("CHROMIUM")
    if configured:
        return configured
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium: install chromium, or set CHROMIUM to a Chromium or Chrome binary", pytrace=False)


@pytest.fixture
def screenshot(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., bytes]:
    """``screenshot(page=None, *, html=None, width=320, height=200)``: the PNG of a page (a file
    relative to the test file's folder, or a URL) or of ``html`` text, as headless Chromium renders
    it in a window of that size (200×150 and up: smaller windows come out blank)."""
    here = Path(request.path).parent

    def take(page: Union[str, os.PathLike, None] = None, *, html: Optional[str] = None, width: int = 320, height: int = 200) -> bytes:
        if (page is None) == (html is None):
            raise TypeError("screenshot: give a page (a file or URL) or html=, one of them")
        if html is not None:
            source = tmp_path / "page.html"
            source.write_text(html, encoding="utf-8")
            url = source.as_uri()
        elif isinstance(page, str) and re.match(r"^[a-z][a-z0-9+.-]*://", page):
            url = page
        else:
            path = Path(page)
            url = (path if path.is_absolute() else here / path).resolve().as_uri()
        shot = tmp_path / f"shot-{width}x{height}.png"
        shot.unlink(missing_ok=True)
        command = [
            chromium(),
            "--headless",
            # Chromium refuses to run as root with its sandbox; the page is the test's own
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--no-first-run",
            "--no-default-browser-check",
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
            f"--window-size={width},{height}",
            f"--screenshot={shot}",
            url,
        ]
        try:
            proc = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            pytest.fail(f"cannot run {command[0]} (set CHROMIUM to the browser): {e}", pytrace=False)
        if proc.returncode != 0 or not shot.is_file():
            pytest.fail(f"{command[0]} did not screenshot {url} (exit code {proc.returncode}):\n{proc.stderr[-3000:]}", pytrace=False)
        return shot.read_bytes()

    return take
