"""The installed package's API and script, against its own binary: run with pytest in an
environment where the simreel-compare wheel is installed (scripts/test-packages does). Needs no
browser."""

import os
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

import simreel_compare
from simreel_compare import CompareError, Result, binary_path, compare


def png(width, height, box=None):
    """A white RGB PNG with ``box`` = (x, y, w, h, (r, g, b)) painted on it."""
    rows = []
    for y in range(height):
        row = bytearray(b"\x00" + b"\xff" * (3 * width))
        if box and box[1] <= y < box[1] + box[3]:
            for x in range(box[0], box[0] + box[2]):
                row[1 + 3 * x : 4 + 3 * x] = bytes(box[4])
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


BLUE = png(120, 80, (20, 20, 60, 30, (0x2A, 0x6F, 0xDB)))
RED = png(120, 80, (20, 20, 60, 30, (0xD9, 0x34, 0x2B)))


@pytest.fixture
def files(tmp_path):
    golden = tmp_path / "golden.png"
    button = tmp_path / "button.png"
    golden.write_bytes(BLUE)
    button.write_bytes(RED)
    return golden, button


def test_the_binary_is_the_one_installed_beside_the_interpreter():
    import sysconfig

    assert Path(binary_path()).parent == Path(sysconfig.get_path("scripts"))
    assert simreel_compare.__version__ != "0.0.0"


def test_equal_bytes_match(tmp_path):
    r = compare(BLUE, bytearray(BLUE), out=tmp_path / "equal")
    assert isinstance(r, Result)
    assert r.match is True and r.exit_code == 0
    assert r.reason.startswith("pass image.png: identical"), r.reason
    assert r.report == (tmp_path / "equal" / "compare-report" / "report.html").resolve()
    assert r.report.is_absolute() and r.report.is_file()
    assert r.summary["checked"] == 1 and r.summary["failed"] == 0


def test_different_files_do_not_match_and_the_reason_is_the_verdict_line(tmp_path, files):
    golden, button = files
    r = compare(str(golden), button, out=str(tmp_path / "differ"))
    assert r.match is False and r.exit_code == 4
    assert r.reason.startswith("FAIL button.png: different: "), r.reason
    frame = r.summary["frames"][0]
    assert frame["passed"] is False
    assert r.reason == f"FAIL button.png: {frame['verdict']}"
    assert r.report.is_file()


def test_options_reach_the_comparator(tmp_path, files):
    golden, button = files
    r = compare(golden, button, out=tmp_path / "o", max_pixels="100%", max_region=1e9, channel=2, threads=1)
    assert r.match, r.reason
    tolerance = tmp_path / "tolerance.toml"
    tolerance.write_text('max_pixels = 1.0\nmax_region = 1000000000\nreason = "a red button is fine"\n')
    r = compare(golden, button, out=tmp_path / "o", tolerance=tolerance)
    assert r.match, r.reason
    r = compare(golden, button, out=tmp_path / "o", tolerance=tolerance, max_pixels=0)
    assert not r.match


def test_bad_input_raises_with_the_exit_code_and_stderr(tmp_path, files):
    with pytest.raises(CompareError) as e:
        compare(BLUE, b"not a picture\n", out=tmp_path / "bad")
    assert e.value.exit_code == 2
    assert "not a picture" in e.value.stderr
    with pytest.raises(CompareError) as e:
        compare(BLUE, BLUE, out=tmp_path / "bad", channel="abc")
    assert e.value.exit_code == 2 and "--channel abc" in e.value.stderr
    with pytest.raises(CompareError):
        compare(files[0], tmp_path / "missing.png", out=tmp_path / "bad")
    with pytest.raises(TypeError):
        compare(BLUE, BLUE, maxPixels=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        compare(BLUE, 42)  # type: ignore[arg-type]


def test_simreel_compare_bin_overrides_the_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMREEL_COMPARE_BIN", str(tmp_path / "no-such-binary"))
    with pytest.raises(CompareError, match="SIMREEL_COMPARE_BIN is set to .*no-such-binary"):
        compare(BLUE, BLUE)
    if os.name != "nt":
        fake = tmp_path / "fake-compare"
        fake.write_text('#!/bin/sh\necho "error: something else went wrong" >&2\nexit 1\n')
        fake.chmod(0o755)
        monkeypatch.setenv("SIMREEL_COMPARE_BIN", str(fake))
        with pytest.raises(CompareError) as e:
            compare(BLUE, BLUE, out=tmp_path / "fake")
        assert e.value.exit_code == 1 and "something else went wrong" in e.value.stderr


def test_a_missing_binary_is_named_with_the_variable(monkeypatch):
    monkeypatch.delenv("SIMREEL_COMPARE_BIN", raising=False)
    monkeypatch.setattr(simreel_compare, "_EXE", "simreel-compare-not-installed")
    with pytest.raises(CompareError, match="SIMREEL_COMPARE_BIN"):
        binary_path()


def test_the_script_runs_with_its_exit_codes(tmp_path, files):
    golden, button = files
    script = binary_path()
    same = subprocess.run([script, "compare", golden, golden, "--out", tmp_path / "s"], capture_output=True, text=True)
    assert same.returncode == 0, same.stderr
    assert "pass golden.png: identical" in same.stderr
    differ = subprocess.run([script, "compare", golden, button, "--out", tmp_path / "d"], capture_output=True, text=True)
    assert differ.returncode == 4
    assert "FAIL button.png: different" in differ.stderr


def test_bytes_keep_their_names_and_can_be_accepted_from_the_report(tmp_path):
    out = tmp_path / "named"
    r = compare(BLUE, RED, out=out, name="button")
    assert not r.match
    assert r.reason.startswith("FAIL button.png: different"), r.reason
    kept = (out / "inputs" / "actual" / "button.png").resolve()
    assert kept.read_bytes() == RED
    bless = r.summary["frames"][0]["bless"]
    assert bless and str(kept) in bless, bless
    golden = tmp_path / "goldens" / "save.png"
    golden.parent.mkdir()
    golden.write_bytes(BLUE)
    s = compare(golden, RED, out=tmp_path / "by-path")
    assert s.reason.startswith("FAIL save.png: different"), s.reason
    with pytest.raises(ValueError, match="not a file name"):
        compare(BLUE, RED, out=out, name="../x.png")
