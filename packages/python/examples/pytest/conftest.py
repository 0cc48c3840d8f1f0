"""Screenshots of pages by the system's headless Chromium, compared with goldens/<name>.png by
simreel-compare.

A missing golden is written and the test fails saying so; UPDATE_GOLDENS=1 writes missing goldens
and replaces differing ones instead of failing. CHROMIUM names the browser (default: chromium on
PATH, else /usr/bin/chromium). No Python browser package: Chromium's own --screenshot.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Optional

import pytest
from simreel_compare import Result, compare

HERE = Path(__file__).resolve().parent
GOLDENS = HERE / "goldens"


def _update() -> bool:
    return os.environ.get("UPDATE_GOLDENS") == "1"


def _chromium() -> str:
    configured = os.environ.get("CHROMIUM")
    if configured:
        return configured
    for name in ("chromium", "chromium-browser", "google-chrome-stable", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium"


@pytest.fixture
def screenshot(tmp_path: Path) -> Callable[..., bytes]:
    """``screenshot(page, width=320, height=200)``: the PNG of a local HTML file (relative to
    this folder), as headless Chromium renders it in a window of that size."""

    def take(page: "str | Path", width: int = 320, height: int = 200) -> bytes:
        page = Path(page)
        if not page.is_absolute():
            page = HERE / page
        shot = tmp_path / f"{page.stem}-{width}x{height}.png"
        command = [
            _chromium(),
            "--headless",
            # Chromium refuses to run as root with its sandbox; the page is our own file
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
            page.as_uri(),
        ]
        try:
            proc = subprocess.run(
                command, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", timeout=120
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            pytest.fail(f"cannot run {command[0]} (set CHROMIUM to the browser): {e}", pytrace=False)
        if proc.returncode != 0 or not shot.is_file():
            pytest.fail(
                f"{command[0]} did not screenshot {page} (exit code {proc.returncode}):\n{proc.stderr[-3000:]}",
                pytrace=False,
            )
        return shot.read_bytes()

    return take


@pytest.fixture
def assert_golden(request: pytest.FixtureRequest) -> Callable[..., Optional[Result]]:
    """``assert_golden(png, name, **options)``: fails unless ``png`` matches goldens/<name>.png
    (options: those of simreel_compare.compare, e.g. max_pixels=0). The screenshot and the report
    go to test-results/<test>/."""
    results = HERE / "test-results" / re.sub(r"[^\w.-]+", "_", request.node.name)

    def check(png: bytes, name: str, **options) -> Optional[Result]:
        golden = GOLDENS / f"{name}.png"
        shown = os.path.relpath(golden)
        results.mkdir(parents=True, exist_ok=True)
        actual = results / f"{name}.png"
        actual.write_bytes(png)
        if not golden.exists():
            GOLDENS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(actual, golden)
            if _update():
                return None
            pytest.fail(
                f"the golden {shown} did not exist: it was written from this screenshot. Look at it, "
                "commit it and run the test again (UPDATE_GOLDENS=1 accepts new goldens without failing).",
                pytrace=False,
            )
        result = compare(golden, actual, out=results / f"{name}-compare", **options)
        if not result.match:
            if _update():
                shutil.copyfile(actual, golden)
                return result
            pytest.fail(
                f"the screenshot differs from the golden {shown}\n"
                f"  {result.reason}\n"
                f"  report: {result.report}\n"
                "  accept it: UPDATE_GOLDENS=1 pytest",
                pytrace=False,
            )
        return result

    return check
