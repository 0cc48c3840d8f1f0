#!/usr/bin/env python3
"""Web formats: what simreel writes for a page (PNG, WebP and AVIF stills; WebP, AVIF, MP4, WebM
and GIF animations) against the reference encoders on the same frames: oxipng (PNG), cwebp and
img2webp (libwebp's own tools), avifenc (libavif) and ffmpeg as a user would call it.

    python3 scripts/peers/web_peers.py [--simreel target/release/simreel] [--runs 3] [--no-install]

The frames are simreel's own renders (a flock at 640x360, light theme; a terrain at 640x360; the
`flock_inset` figure at 960x400). Every row: bytes, median wall time of `--runs` timed runs after
an untimed warm-up (the whole command: process start, reading, encoding, writing), and quality
against the PNG frames: PSNR (mean over frames) and the mean FLIP error from `simreel compare`.
simreel's rows are `simreel render ... --resume` of frames already in the folder, less the same
command writing PNG only (loading the scene and stepping its simulation to the frames), so they
time the encoding a render adds. Results: results/web_peers.{md,json}.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STILLS = [
    # (name, scene, frame, size)
    ("flock frame", "scenes/flock.toml", 150, "640x360"),
    ("terrain frame", "scenes/terrain.toml", 30, "640x360"),
    ("inset figure", "scenes/figures/flock_inset.toml", 0, None),
]
CLIPS = [
    # (name, scene, first, last, size)
    ("flock, 60 frames", "scenes/flock.toml", 120, 179, "640x360"),
    ("terrain, 60 frames", "scenes/terrain.toml", 0, 59, "640x360"),
]


def run_ok(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {p.stderr.decode(errors='replace')[-800:]}")
    return p


def timed(cmd, runs):
    """Median wall seconds of `runs` runs after one untimed warm-up."""
    run_ok(cmd)
    times = []
    for _ in range(runs):
        wall, _cpu, p = C.timed_subprocess(cmd)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd))}: {p.stderr.decode(errors='replace')[-800:]}")
        times.append(wall)
    return C.median(times), times


def decode_frames(path, work):
    """RGB frames of an image or animation, as PNG files (Pillow for WebP, ffmpeg otherwise)."""
    out = Path(tempfile.mkdtemp(dir=work, prefix="dec-"))
    if path.suffix == ".webp":
        from PIL import Image, ImageSequence
        with Image.open(path) as im:
            for k, frame in enumerate(ImageSequence.Iterator(im)):
                frame.convert("RGB").save(out / f"{k:04d}.png")
    elif path.suffix == ".png":
        shutil.copy(path, out / "0000.png")
    else:
        run_ok(["ffmpeg", "-v", "error", "-y", "-i", str(path), str(out / "%04d.png")])
    return sorted(out.glob("*.png"))


def quality(refs, path, simreel, work):
    """(mean PSNR dB, mean FLIP, worst background share) of the decoded frames of `path` against
    the PNG frames `refs`. The background share: of the pixels equal (within 1 level) to their
    row's first in the PNG (a flat or vertical-gradient background), those more than 8 levels off
    in the decoded frame; the worst frame's. A block an encoder kept from an earlier frame shows
    there."""
    import numpy as np
    from PIL import Image
    decoded = decode_frames(path, work)
    if len(decoded) != len(refs):
        raise RuntimeError(f"{path.name}: {len(decoded)} frames decoded, {len(refs)} expected")
    psnrs, flips, background = [], [], 0.0
    for ref, dec in zip(refs, decoded):
        a = np.asarray(Image.open(ref).convert("RGB"), dtype=np.float64)
        b = np.asarray(Image.open(dec).convert("RGB"), dtype=np.float64)[: a.shape[0], : a.shape[1]]
        mse = ((a - b) ** 2).mean()
        psnrs.append(float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse))
        flat = np.abs(a - a[:, :1, :]).max(axis=2) <= 1
        off = np.abs(a - b).max(axis=2) > 8
        background = max(background, float((flat & off).sum()) / max(int(flat.sum()), 1))
    # FLIP on at most 6 frames spread over the clip (the comparator's perceptual layer)
    pick = sorted({round(i * (len(refs) - 1) / 5) for i in range(6)}) if len(refs) > 1 else [0]
    for i in pick:
        rep = Path(tempfile.mkdtemp(dir=work, prefix="flip-"))
        subprocess.run([simreel, "compare", str(refs[i]), str(decoded[i]), "--flip-mean", "1", "--flip-p99", "1",
                        "--out", str(rep), "-q"], capture_output=True)
        summary = json.loads((rep / "compare-report" / "summary.json").read_text())
        flips.append(summary["frames"][0].get("flip_mean") or 0.0)
    finite = [p for p in psnrs if p != float("inf")]
    psnr = sum(finite) / len(finite) if finite else float("inf")
    return psnr, sum(flips) / len(flips), background


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simreel", default=str(ROOT / "target/release/simreel"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--out-suffix", default="")
    args = ap.parse_args()
    C.ensure_installed("web", skip=args.no_install)
    simreel = args.simreel
    work = C.WORK / "web"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    out = work / "out"
    rows, failures = [], []

    def render(scene, frames, size, fmt, extra=()):
        cmd = [simreel, "render", str(ROOT / scene), "--frames", frames, "--format", fmt, "--out", str(out), "-q", "--resume"]
        if size:
            cmd += ["--size", size]
        return cmd + list(extra)

    def add(kind, source, tool, path, secs, refs):
        try:
            psnr, flip, background = quality(refs, path, simreel, work)
        except Exception as e:  # noqa: BLE001
            failures.append(f"{source} / {tool}: {e}")
            return
        rows.append({"kind": kind, "source": source, "tool": tool, "bytes": path.stat().st_size, "seconds": secs,
                     "psnr_db": psnr, "flip_mean": flip, "background_off": background})

    # stills
    for name, scene, frame, size in STILLS:
        run_ok(render(scene, str(frame), size, "png"))
        stem = Path(scene).stem
        folder = out / stem
        ref = folder / f"frame_{frame:04d}.png"
        base, _ = timed(render(scene, str(frame), size, "png"), args.runs)
        # PNG: the frame as a render writes it, -o's, oxipng
        add("still PNG", name, "simreel frame (fast)", ref, None, [ref])
        target = work / f"{stem}.png"
        secs, _ = timed(render(scene, str(frame), size, "png", ["-o", str(target)]), args.runs)
        add("still PNG", name, "simreel -o .png", target, max(secs - base, 0.0), [ref])
        for level in (2, 4):
            dst = work / f"{stem}.oxipng{level}.png"
            secs, _ = timed([sys.executable, "-c", f"import oxipng; oxipng.optimize({str(ref)!r}, {str(dst)!r}, level={level})"], args.runs)
            add("still PNG", name, f"oxipng -o {level}", dst, secs, [ref])
        # WebP: ours (libwebp through ffmpeg, quality 90 and lossless), cwebp
        for q in (90, 100):
            target = work / f"{stem}.q{q}.webp"
            cmd = render(scene, str(frame), size, "png", ["-o", str(target), "--set", f"output.webp_quality={q}"])
            run_ok(render(scene, str(frame), size, "png", ["--set", f"output.webp_quality={q}"]))
            b, _ = timed(render(scene, str(frame), size, "png", ["--set", f"output.webp_quality={q}"]), args.runs)
            secs, _ = timed(cmd, args.runs)
            add("still WebP", name, f"simreel -o .webp (quality {q})", target, max(secs - b, 0.0), [ref])
        for label, flags in (("cwebp -q 90", ["-q", "90"]), ("cwebp -lossless", ["-lossless"])):
            dst = work / f"{stem}.cwebp{'L' if 'lossless' in label else '90'}.webp"
            secs, _ = timed(["cwebp", "-quiet", *flags, str(ref), "-o", str(dst)], args.runs)
            add("still WebP", name, label, dst, secs, [ref])
        # AVIF: ours (libaom through ffmpeg, crf 24, 4:4:4), avifenc at the same quantizer and speed
        target = work / f"{stem}.avif"
        secs, _ = timed(render(scene, str(frame), size, "png", ["-o", str(target)]), args.runs)
        add("still AVIF", name, "simreel -o .avif (crf 24)", target, max(secs - base, 0.0), [ref])
        dst = work / f"{stem}.avifenc.avif"
        secs, _ = timed(["avifenc", "-j", "all", "-s", "6", "-y", "444", "--min", "0", "--max", "63", "-a", "end-usage=q",
                         "-a", "cq-level=24", str(ref), str(dst)], args.runs)
        add("still AVIF", name, "avifenc -s 6, cq-level 24", dst, secs, [ref])

    # animations
    for name, scene, first, last, size in CLIPS:
        frames = f"{first}..{last}"
        stem = Path(scene).stem
        run_ok(render(scene, frames, size, "png"))
        refs = [out / stem / f"frame_{f:04d}.png" for f in range(first, last + 1)]
        base, _ = timed(render(scene, frames, size, "png"), args.runs)
        for fmt in ("gif", "webp", "avif", "mp4", "webm"):
            # with the PNG frames, so that the render keeps them (a GIF alone is drawn again)
            secs, _ = timed(render(scene, frames, size, f"png,{fmt}"), args.runs)
            add(f"animation {fmt}", name, f"simreel --format {fmt}", out / f"{stem}.{first}-{last}.{fmt}", max(secs - base, 0.0), refs)
        peers = [
            ("animation webp", "img2webp -lossy -q 90", ["img2webp", "-loop", "0", "-d", "33", "-lossy", "-q", "90", *map(str, refs), "-o"], "webp"),
            # every frame a key frame: what simreel's lossy animation is
            ("animation webp", "img2webp -lossy -q 90 -kmax 1",
             ["img2webp", "-loop", "0", "-kmin", "0", "-kmax", "1", "-d", "33", "-lossy", "-q", "90", *map(str, refs), "-o"], "webp"),
            ("animation webp", "img2webp -lossless", ["img2webp", "-loop", "0", "-d", "33", "-lossless", *map(str, refs), "-o"], "webp"),
            ("animation mp4", "ffmpeg libx264, its defaults (crf 23)",
             ["ffmpeg", "-v", "error", "-y", "-framerate", "30", "-start_number", str(first), "-i", str(out / stem / "frame_%04d.png"),
              "-frames:v", str(len(refs)), "-c:v", "libx264", "-pix_fmt", "yuv420p"], "mp4"),
        ]
        for kind, label, cmd, ext in peers:
            dst = work / f"{stem}.{'-'.join(label.split()[:1] + label.split()[-2:])}.{ext}"
            try:
                secs, _ = timed(cmd + [str(dst)], args.runs)
            except RuntimeError as e:
                failures.append(f"{name} / {label}: {e}")
                continue
            add(kind, name, label, dst, secs, refs)

    env = C.environment()
    env["versions"] = {t: C._cmd_version(v) for t, v in {
        "ffmpeg": ["ffmpeg", "-version"], "cwebp": ["cwebp", "-version"], "avifenc": ["avifenc", "--version"],
        "simreel": [simreel, "--version"]}.items()}
    env["versions"]["pyoxipng"] = C.pkg_version("pyoxipng")
    name = f"web_peers{args.out_suffix}"
    C.write_json(C.RESULTS / f"{name}.json", {"environment": env, "rows": rows, "failures": failures})
    table = C.md_table(
        ["kind", "source", "tool", "bytes", "encode s", "PSNR dB", "FLIP mean", "background > 8 off"],
        [[r["kind"], r["source"], r["tool"], f"{r['bytes']:,}",
          "" if r["seconds"] is None else f"{r['seconds']:.3f}",
          "lossless" if r["psnr_db"] == float("inf") else f"{r['psnr_db']:.1f}", f"{r['flip_mean']:.4f}",
          f"{100 * r['background_off']:.2f} %"] for r in rows])
    text = f"# Web formats against their reference encoders\n\n{C.env_md(env)}\n\n{table}\n"
    if failures:
        text += "\n## Failures\n\n" + "\n".join(f"- {f}" for f in failures) + "\n"
    (C.RESULTS / f"{name}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
