#!/usr/bin/env python3
"""Part B: animated-GIF encoder peers on a deterministic rendered-style sequence.

    python3 scripts/peers/gif_peers.py                 # full run: 1 warm-up + 3 timed runs each
    python3 scripts/peers/gif_peers.py --runs 1 --out-suffix _quick   # smoke test

Input: 60 frames, 512x512 RGBA PNG (opaque), from scripts/peers/frames.py, written to
scripts/peers/.work/gif_frames/frame_000.png.. (regenerated only when frames.py changes).
Output: an infinitely looping GIF at 30 fps (centisecond delays 3,3,4,...).

Peers (each skipped with the reason recorded if it is not installed):
  * gifski (cargo install gifski): defaults (quality 90), and --fast
  * ffmpeg (Debian): palettegen/paletteuse, one global palette (filter defaults:
    stats_mode=full, dither=sierra2_4a); and per-frame palettes
    (palettegen=stats_mode=single, paletteuse=new=1)
  * ImageMagick 6 (Debian /usr/bin/convert): convert -delay 1x30 -loop 0 frames... out.gif
    (defaults: per-frame quantization to 256 colours with IM's default dither)
  * Rust gif crate 0.14 Frame::from_rgba_speed at speed 10 and 30
    (scripts/peers/rust-peers gif_enc; NeuQuant, local palette per frame)

Measured per peer: wall time of the whole command (process start, PNG decode,
encode, write) = median of --runs timed runs after one untimed warm-up (peers
run round-robin, one pass at a time); the
child's CPU time (user+sys; > wall means it used both cores); output bytes;
quality = PSNR (RGB, 8-bit) of every decoded GIF frame (pillow) against its
source frame, averaged over the frames (min also recorded), and the same after a
sigma=1 px Gaussian blur of both images (credits dithering). For the gif crate
the in-process encode-only time (no PNG decode, no file write) is also given.
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

# Install missing peers (numpy included) before the third-party imports below.
if __name__ == "__main__" and not {"--no-install", "-h", "--help"} & set(sys.argv):
    C.ensure_installed("gif")

import numpy as np
from PIL import Image, ImageFilter

import frames as FR  # noqa: E402

N_FRAMES, SIZE, FPS = 60, 512, 30
FRAMES_DIR = C.WORK / "gif_frames"
OUT_DIR = C.WORK / "gif_out"


def ensure_frames():
    stamp = hashlib.sha256((Path(FR.__file__).read_bytes()
                            + f"{N_FRAMES},{SIZE}".encode())).hexdigest()
    sf = FRAMES_DIR / ".stamp"
    if not (sf.exists() and sf.read_text() == stamp
            and all((FRAMES_DIR / f"frame_{i:03d}.png").exists() for i in range(N_FRAMES))):
        if FRAMES_DIR.exists():
            shutil.rmtree(FRAMES_DIR)
        print(f"[gif] generating {N_FRAMES} frames {SIZE}x{SIZE} into {FRAMES_DIR}", file=sys.stderr)
        FR.write_sequence(str(FRAMES_DIR), N_FRAMES, SIZE)
        sf.write_text(stamp)
    paths = [str(FRAMES_DIR / f"frame_{i:03d}.png") for i in range(N_FRAMES)]
    src = [np.asarray(Image.open(p).convert("RGB")) for p in paths]
    h = hashlib.sha256()
    for a in src:
        h.update(a.tobytes())
    return paths, src, h.hexdigest()


def decode_gif(path):
    im = Image.open(path)
    out, dur = [], []
    for k in range(im.n_frames):
        im.seek(k)
        out.append(np.asarray(im.convert("RGB")))
        dur.append(im.info.get("duration"))
    return out, dur


def _blur(a):
    return np.asarray(Image.fromarray(a).filter(ImageFilter.GaussianBlur(1.0)), dtype=np.float64)


def psnr_frames(src, dec, durations):
    """Mean/min PSNR over source frames, plus mean PSNR after a sigma=1 px Gaussian
    blur of both images (a crude 'viewing distance' figure that credits dithering,
    which plain PSNR punishes). If the GIF has a different frame count, map each
    source frame (t = i/FPS) to the GIF frame shown at that time."""
    if len(dec) == len(src):
        idx = list(range(len(src)))
    else:
        starts, t = [], 0.0
        for d in durations:
            starts.append(t)
            t += (d or 0)
        idx = []
        for i in range(len(src)):
            ti = i * 1000.0 / FPS + 1e-6
            k = max(j for j, s in enumerate(starts) if s <= ti)
            idx.append(k)
    def psnr(a, b):
        mse = float(np.mean((a - b) ** 2))
        return 99.0 if mse == 0 else 10.0 * math.log10(255.0 ** 2 / mse)
    ps, pb = [], []
    for i, k in enumerate(idx):
        ps.append(psnr(src[i].astype(np.float64), dec[k].astype(np.float64)))
        pb.append(psnr(_blur(src[i]), _blur(dec[k])))
    return float(np.mean(ps)), float(np.min(ps)), float(np.mean(pb))


def version_of(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
        return (p.stdout or p.stderr).strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        return None


def install_log_tail(name):
    p = C.WORK / f"install-{name}.log"
    return p.read_text()[-1500:] if p.exists() else None


def peer_list(paths, rust_ok, rust_err):
    d = str(FRAMES_DIR)
    pattern = os.path.join(d, "frame_%03d.png")
    ps = []
    gifski = shutil.which("gifski") or (str(Path.home() / ".cargo/bin/gifski")
                                         if (Path.home() / ".cargo/bin/gifski").exists() else None)
    if gifski:
        v = version_of([gifski, "--version"])
        ps.append(dict(key="gifski", name=f"{v} (defaults: quality 90)",
                       cmd=lambda o: [gifski, "--quiet", "--fps", str(FPS), "-o", o] + paths))
        ps.append(dict(key="gifski-fast", name=f"{v} --fast",
                       cmd=lambda o: [gifski, "--quiet", "--fast", "--fps", str(FPS), "-o", o] + paths))
    else:
        ps.append(dict(key="gifski", error="gifski not installed; cargo install log tail: "
                       + str(install_log_tail("gifski"))))
    ff = shutil.which("ffmpeg")
    if ff:
        v = version_of([ff, "-version"])
        v = f"ffmpeg {v.split()[2]}" if v and len(v.split()) > 2 else "ffmpeg"
        base = [ff, "-v", "error", "-y", "-framerate", str(FPS), "-i", pattern]
        ps.append(dict(key="ffmpeg-global", name=f"{v} palettegen+paletteuse (global palette, defaults)",
                       cmd=lambda o: base + ["-filter_complex",
                                             "[0:v]split[a][b];[a]palettegen[p];[b][p]paletteuse",
                                             "-loop", "0", o]))
        ps.append(dict(key="ffmpeg-perframe",
                       name=f"{v} palettegen=stats_mode=single+paletteuse=new=1 (per-frame palettes)",
                       cmd=lambda o: base + ["-filter_complex",
                                             "[0:v]split[a][b];[a]palettegen=stats_mode=single[p];"
                                             "[b][p]paletteuse=new=1",
                                             "-loop", "0", o]))
    else:
        ps.append(dict(key="ffmpeg", error="ffmpeg not installed: " + str(install_log_tail("apt-ffmpeg"))))
    conv = "/usr/bin/convert"
    cv = version_of([conv, "-version"]) if os.path.exists(conv) else None
    if cv and "ImageMagick" in cv:
        ps.append(dict(key="imagemagick", name=" ".join(cv.split()[1:4]) + " convert -delay 1x30 -loop 0",
                       cmd=lambda o: [conv, "-delay", f"1x{FPS}", "-loop", "0"] + paths + [o]))
    else:
        ps.append(dict(key="imagemagick", error="Debian ImageMagick /usr/bin/convert not available: "
                       + str(install_log_tail("apt-imagemagick"))))
    if rust_ok:
        exe = str(C.RUST_BIN / "gif_enc")
        for sp in (10, 30):
            ps.append(dict(key=f"gif-crate-speed{sp}",
                           name=f"gif 0.14.2 Frame::from_rgba_speed speed {sp} (rust-peers gif_enc)",
                           inproc=True,
                           cmd=lambda o, sp=sp: [exe, "--frames", d, "--count", str(N_FRAMES),
                                                 "--speed", str(sp), "--fps", str(FPS), "--out", o]))
    else:
        ps.append(dict(key="gif-crate", error="rust-peers build failed: " + rust_err))
    return ps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated peer keys to run")
    ap.add_argument("--no-install", action="store_true", help="skip install_peers.sh gif")
    ap.add_argument("--out-suffix", default="")
    ap.add_argument("--ours", default="", help=(
        "command template for our own encoder, timed like the other peers; "
        "{frames_dir} {first} {count} {fps} {out} are substituted (shell words); "
        "frames are {frames_dir}/frame_000.png..; it must write the GIF to {out}"))
    args = ap.parse_args()

    env = C.environment()
    paths, src, frames_sha = ensure_frames()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    rust_ok, rust_err = C.build_rust_peers()

    rows, failures = [], []
    active = []
    plist = peer_list(paths, rust_ok, rust_err)
    if args.ours:
        import shlex
        tmpl = shlex.split(args.ours)
        plist.append(dict(key="ours", name="ours: " + args.ours, cmd=lambda o: [
            w.format(frames_dir=str(FRAMES_DIR), first=paths[0], count=N_FRAMES, fps=FPS, out=o)
            for w in tmpl]))
    for p in plist:
        if args.only and p["key"] not in args.only.split(",") + ["ours"]:
            continue
        if "error" in p:
            failures.append({"peer": p["key"], "error": p["error"]})
            continue
        p.update(out=str(OUT_DIR / f"{p['key']}.gif"), walls=[], cpus=[], inproc_samples=[], err=None)
        active.append(p)

    # Round-robin: pass 0 is the untimed warm-up of every peer, then `runs` timed
    # passes over all peers, so slow drifts in background load hit every peer alike.
    for r in range(args.runs + 1):
        for p in active:
            if p["err"] is not None:
                continue
            if os.path.exists(p["out"]):
                os.remove(p["out"])
            wall, cpu, cp = C.timed_subprocess(p["cmd"](p["out"]))
            if cp.returncode != 0 or not os.path.exists(p["out"]):
                p["err"] = (cp.stderr or cp.stdout or b"").decode(errors="replace")[-1500:]
                continue
            print(f"[gif] pass {r}{' (warm-up)' if r == 0 else ''} {p['key']}: {wall:.2f}s",
                  file=sys.stderr)
            if r == 0:
                continue
            p["walls"].append(wall)
            p["cpus"].append(cpu)
            if p.get("inproc"):
                p["inproc_samples"].append(json.loads(cp.stdout.decode().strip().splitlines()[-1]))

    for p in active:
        if p["err"] is not None:
            failures.append({"peer": p["name"], "error": f"exit/output failure: {p['err']}"})
            continue
        out = p["out"]
        dec, dur = decode_gif(out)
        mean_psnr, min_psnr, blur_psnr = psnr_frames(src, dec, dur)
        walls, cpus, inproc = p["walls"], p["cpus"], p["inproc_samples"]
        row = {"key": p["key"], "peer": p["name"], "wall_s": walls, "median_wall_s": C.median(walls),
               "cpu_s": cpus, "median_cpu_s": C.median(cpus), "bytes": os.path.getsize(out),
               "gif_frames": len(dec), "total_duration_ms": sum(d or 0 for d in dur),
               "psnr_mean_db": mean_psnr, "psnr_min_db": min_psnr,
               "psnr_blur1_mean_db": blur_psnr}
        if inproc:
            row["median_encode_only_s"] = C.median([x["encode_s"] for x in inproc])
            row["median_png_decode_s"] = C.median([x["decode_s"] for x in inproc])
        rows.append(row)
        print(f"[gif] {p['key']}: {row['median_wall_s']:.2f}s wall, {row['bytes']} B, "
              f"PSNR {mean_psnr:.2f} dB", file=sys.stderr)

    env["loadavg_at_end"] = list(os.getloadavg())
    env["versions"] = {"numpy": C.pkg_version("numpy"), "pillow": C.pkg_version("pillow")}
    res = {"benchmark": "gif_peers", "environment": env, "runs": args.runs,
           "input": {"frames": N_FRAMES, "size": [SIZE, SIZE], "fps": FPS, "format": "RGBA8 PNG, opaque",
                     "generator": "scripts/peers/frames.py", "rgb_sha256": frames_sha,
                     "raw_rgba_bytes": N_FRAMES * SIZE * SIZE * 4},
           "timing": "median wall time of `runs` timed whole-command runs after 1 untimed warm-up; peers interleaved round-robin",
           "quality": "PSNR (RGB) of each pillow-decoded GIF frame vs its source frame, mean over frames; psnr_blur1: both Gaussian-blurred sigma=1px first",
           "rows": rows, "failures": failures}
    stem = f"gif_peers{args.out_suffix}"
    C.write_json(C.RESULTS / f"{stem}.json", res)
    (C.RESULTS / f"{stem}.md").write_text(render_md(res))
    print(f"[gif] wrote {C.RESULTS / (stem + '.md')}", file=sys.stderr)


def render_md(res):
    env = res["environment"]
    lines = ["# GIF encoder peers (scripts/peers/gif_peers.py)", "",
             C.env_md(env) + f" Load average at end {env['loadavg_at_end'][0]:.2f}.", "",
             f"Input: {res['input']['frames']} frames {res['input']['size'][0]}x{res['input']['size'][1]} "
             f"RGBA PNG (opaque) from scripts/peers/frames.py, {res['input']['fps']} fps, infinite loop. "
             f"Wall = median of {res['runs']} timed runs of the whole command (incl. process start and "
             "PNG decoding) after one warm-up. CPU = user+sys of the child (CPU > wall: both cores "
             "used). anim ms = summed frame delays (2000 = exact 30 fps; IM's 1x30 delay rounds to 3 cs). "
             "PSNR = RGB PSNR of each decoded frame (pillow) vs source, mean (min) over frames. "
             "PSNR blur1 = the same after a sigma=1 px Gaussian blur of both (credits dithering, "
             "which plain PSNR punishes: undithered quantizers band visibly yet score higher).",
             ""]
    hdr = ["peer", "median wall s", "CPU s", "ms/frame (wall)", "bytes", "KiB/frame",
           "PSNR mean dB", "PSNR min dB", "PSNR blur1 dB", "frames", "anim ms"]
    ours = [r for r in res["rows"] if r["key"] == "ours"]
    if ours:
        hdr.insert(2, "x ours")
    body = []
    for r in sorted(res["rows"], key=lambda r: r["median_wall_s"]):
        nf = res["input"]["frames"]
        ratio = [f"{r['median_wall_s']/ours[0]['median_wall_s']:.2f}"] if ours else []
        body.append([r["peer"], f"{r['median_wall_s']:.3f}"] + ratio + [f"{r['median_cpu_s']:.3f}",
                     f"{r['median_wall_s']*1000/nf:.1f}", r["bytes"], f"{r['bytes']/1024/nf:.1f}",
                     f"{r['psnr_mean_db']:.2f}", f"{r['psnr_min_db']:.2f}",
                     f"{r['psnr_blur1_mean_db']:.2f}", r["gif_frames"], r["total_duration_ms"]])
    lines.append(C.md_table(hdr, body))
    lines.append("")
    inp = [r for r in res["rows"] if "median_encode_only_s" in r]
    if inp:
        lines.append("gif crate, in-process split (median): "
                     + "; ".join(f"{r['key']}: encode only {r['median_encode_only_s']:.3f} s "
                                 f"({r['median_encode_only_s']*1000/res['input']['frames']:.1f} ms/frame), "
                                 f"PNG decode {r['median_png_decode_s']:.3f} s" for r in inp) + ".")
        lines.append("")
    if res["failures"]:
        lines.append("## Failures")
        for f in res["failures"]:
            lines.append(f"- {f['peer']}: {f['error']}")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    if "--render-only" in sys.argv:  # re-render results/gif_peers.md from the JSON
        (C.RESULTS / "gif_peers.md").write_text(render_md(json.load(open(C.RESULTS / "gif_peers.json"))))
    else:
        main()
