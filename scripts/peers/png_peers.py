#!/usr/bin/env python3
"""Part C: cost of encoding one 1024x1024 RGBA rendered-style frame to PNG.

    python3 scripts/peers/png_peers.py                # full run: 1 warm-up + 21 timed encodes each
    python3 scripts/peers/png_peers.py --runs 3 --out-suffix _quick

Input: scripts/peers/frames.py make_frame(17, size=1024) (opaque RGBA8, 4 MiB raw),
written raw to scripts/peers/.work/png_frame_1024.rgba.
Peers, each encoding from an in-memory RGBA buffer into memory (no file I/O,
no process start in the timed region):
  * Rust image 0.25 PngEncoder::new default (which is CompressionType::Fast,
    i.e. png Compression::Fast + adaptive filter), png 0.18 defaults
    (Compression::Balanced + adaptive filter), png Compression::Fast (fdeflate),
    png Compression::Fastest (scripts/peers/rust-peers png_enc)
  * pillow Image.save(BytesIO, "PNG", compress_level=6) (pillow's default) and =1
Reported: median ms per frame, spread (max/min), bytes; every output is decoded
back with pillow and checked to be pixel-identical (lossless).
"""

import argparse
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

# Install missing peers (numpy included) before the third-party imports below.
if __name__ == "__main__" and not {"--no-install", "-h", "--help"} & set(sys.argv):
    C.ensure_installed("png")

import numpy as np
from PIL import Image

import frames as FR  # noqa: E402

SIZE, FRAME_INDEX = 1024, 17
OUT_DIR = C.WORK / "png_out"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--no-install", action="store_true", help="skip install_peers.sh png")
    ap.add_argument("--out-suffix", default="")
    ap.add_argument("--ours", default="", help=(
        "command template for our own PNG encoder; {raw} {width} {height} {runs} {out} are "
        "substituted (shell words); {raw} is the RGBA8 frame; it must time in-memory encodes "
        "itself, write one PNG to {out} and print a JSON line with median_s, bytes (times_s optional)"))
    args = ap.parse_args()

    env = C.environment()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    rgba = FR.make_frame(FRAME_INDEX, SIZE)
    raw_path = C.WORK / f"png_frame_{SIZE}.rgba"
    raw_path.write_bytes(rgba.tobytes())
    rows, failures = [], []

    # --- pillow
    im = Image.frombytes("RGBA", (SIZE, SIZE), rgba.tobytes())
    for level in (6, 1):
        key = f"pillow-level{level}"
        buf = io.BytesIO()
        im.save(buf, "PNG", compress_level=level)  # warm-up
        times = []
        for _ in range(args.runs):
            buf = io.BytesIO()
            t0 = time.perf_counter()
            im.save(buf, "PNG", compress_level=level)
            times.append(time.perf_counter() - t0)
        data = buf.getvalue()
        (OUT_DIR / f"{key}.png").write_bytes(data)
        rows.append({"key": key, "peer": f"pillow {C.pkg_version('pillow')} compress_level={level}"
                     + (" (default)" if level == 6 else ""),
                     "times_s": times, "median_s": C.median(times), "bytes": len(data)})

    # --- Rust
    ok, err = C.build_rust_peers()
    if not ok:
        failures.append({"peer": "rust-peers png_enc", "error": err})
    else:
        p = subprocess.run([str(C.RUST_BIN / "png_enc"), "--raw", str(raw_path), "--width", str(SIZE),
                            "--height", str(SIZE), "--runs", str(args.runs), "--outdir", str(OUT_DIR)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failures.append({"peer": "rust-peers png_enc", "error": p.stderr[-1500:]})
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                rows.append(json.loads(line))

    if args.ours:
        import shlex
        cmd = [w.format(raw=str(raw_path), width=SIZE, height=SIZE, runs=args.runs,
                        out=str(OUT_DIR / "ours.png")) for w in shlex.split(args.ours)]
        pr = subprocess.run(cmd, capture_output=True, text=True)
        js = [ln for ln in pr.stdout.splitlines() if ln.startswith("{")]
        if pr.returncode != 0 or not js:
            failures.append({"peer": "ours", "error": (pr.stderr or pr.stdout)[-1500:]})
        else:
            o = json.loads(js[-1])
            rows.append({"key": "ours", "peer": "ours: " + args.ours,
                         "times_s": o.get("times_s", [o["median_s"]]), "median_s": o["median_s"],
                         "bytes": o["bytes"]})

    for r in rows:
        back = np.asarray(Image.open(OUT_DIR / f"{r['key']}.png").convert("RGBA"))
        r["lossless_roundtrip"] = bool(np.array_equal(back, rgba))
        r["min_s"], r["max_s"] = min(r["times_s"]), max(r["times_s"])
        r["mb_per_s_raw"] = rgba.nbytes / r["median_s"] / 1e6
        print(f"[png] {r['key']}: {r['median_s']*1e3:.2f} ms, {r['bytes']} B, "
              f"lossless={r['lossless_roundtrip']}", file=sys.stderr)

    env["loadavg_at_end"] = list(os.getloadavg())
    env["versions"] = {"numpy": C.pkg_version("numpy"), "pillow": C.pkg_version("pillow")}
    res = {"benchmark": "png_peers", "environment": env, "runs": args.runs,
           "input": {"generator": f"scripts/peers/frames.py make_frame({FRAME_INDEX}, size={SIZE})",
                     "size": [SIZE, SIZE], "format": "RGBA8 opaque", "raw_bytes": rgba.nbytes},
           "timing": "median of `runs` timed in-memory encodes after 1 untimed warm-up",
           "rows": rows, "failures": failures}
    stem = f"png_peers{args.out_suffix}"
    C.write_json(C.RESULTS / f"{stem}.json", res)
    (C.RESULTS / f"{stem}.md").write_text(render_md(res))
    print(f"[png] wrote {C.RESULTS / (stem + '.md')}", file=sys.stderr)


def render_md(res):
    env = res["environment"]
    lines = ["# PNG encoding peers (scripts/peers/png_peers.py)", "",
             C.env_md(env) + f" Load average at end {env['loadavg_at_end'][0]:.2f}.", "",
             f"One {res['input']['size'][0]}x{res['input']['size'][1]} opaque RGBA8 frame "
             f"({res['input']['generator']}, {res['input']['raw_bytes']} raw bytes), encoded in memory; "
             f"median of {res['runs']} timed encodes after one warm-up, single-threaded. "
             "Every output decodes (pillow) back to identical pixels.", ""]
    hdr = ["peer", "median ms/frame", "spread", "MB/s (raw)", "bytes", "ratio", "lossless"]
    ours = [r for r in res["rows"] if r["key"] == "ours"]
    if ours:
        hdr.insert(2, "x ours")
    body = []
    for r in sorted(res["rows"], key=lambda r: r["median_s"]):
        ratio = [f"{r['median_s']/ours[0]['median_s']:.2f}"] if ours else []
        body.append([r["peer"], f"{r['median_s']*1e3:.2f}"] + ratio + [f"{r['max_s']/r['min_s']:.2f}",
                     f"{r['mb_per_s_raw']:.0f}", r["bytes"],
                     f"{r['bytes']/res['input']['raw_bytes']*100:.1f}%",
                     "yes" if r["lossless_roundtrip"] else "NO"])
    lines.append(C.md_table(hdr, body))
    lines.append("")
    if res["failures"]:
        lines.append("## Failures")
        for f in res["failures"]:
            lines.append(f"- {f['peer']}: {f['error']}")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
