"""Helpers shared by the anchor benchmark scripts (no peer code here)."""

import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Where results and scratch go: $BENCH_OUT, else beside the scripts when that folder is writable,
# else ~/.cache/simreel-bench (the scripts may sit in a read-only copy).
OUT = Path(os.environ.get("BENCH_OUT") or (HERE if os.access(HERE, os.W_OK) else Path.home() / ".cache" / "simreel-bench"))
RESULTS = OUT / "results"
WORK = OUT / ".work"
RUST_DIR = HERE / "rust-peers"
RUST_TARGET = RUST_DIR / "target" if OUT == HERE else OUT / "rust-target"
RUST_BIN = RUST_TARGET / "release"
os.environ["BENCH_OUT"] = str(OUT)
os.environ["CARGO_TARGET_DIR"] = str(RUST_TARGET)


def ensure_installed(what, skip=False):
    """Run install_peers.sh for this part (idempotent, skips what is present)."""
    WORK.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if skip:
        return 0
    return subprocess.run(["bash", str(HERE / "install_peers.sh"), what]).returncode


def build_rust_peers():
    """cargo build --release of scripts/peers/rust-peers; returns (ok, error_tail)."""
    p = subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--manifest-path", str(RUST_DIR / "Cargo.toml")],
        capture_output=True, text=True)
    return p.returncode == 0, (p.stderr or p.stdout)[-2000:]


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment():
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "loadavg_at_start": list(os.getloadavg()),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "rustc": _cmd_version(["rustc", "--version"]),
    }


def _cmd_version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        return None


def pkg_version(dist):
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001
        return None


def timed_subprocess(cmd, **kw):
    """Run cmd; return (wall_s, child_cpu_s, CompletedProcess). cpu = user+sys of the child tree."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, **kw)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t1 - t0, cpu, p


def write_json(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
        f.write("\n")


def md_table(headers, rows):
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join("" if c is None else str(c) for c in r) + " |")
    return "\n".join(out)


def env_md(env):
    return (f"Machine: {env['cpu']}, {env['cores']} cores; load average at start "
            f"{env['loadavg_at_start'][0]:.2f}; Python {env['python']}; {env['rustc']}; "
            f"run {env['date_utc']}.")
