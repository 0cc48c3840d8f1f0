#!/usr/bin/env python3
"""A large page and a batch, against odiff: the rows of docs/benchmarks/compare-pages.md.

    scripts/peers/compare/pages_bench.py CHECKOUT [--before BIN] [--runs 5] [--work DIR]

1. An 8000x8000 Chromium screenshot of ten columns of text, and the same page with three changes a
   person sees far apart (a red box, a word, a blue bar): one `simreel-compare compare` of the pair
   (report included) against odiff's native binary with --antialiasing (one diff PNG).
2. 33 pairs of 1280x800 pages: each of the eleven judgement widgets (the suite's fixtures,
   crates/simreel-compare/tests/fixtures/judgement) pasted into the fixtures' page in three places:
   one `simreel-compare compare` of the two folders against odiff's Node server (`ODiffServer`, one
   process for all pairs, timed inside the script: Node's own start is not counted).

Whole process for the CLIs (`/usr/bin/time`: wall seconds and peak memory), the median of --runs.
Needs CHECKOUT/target/release/simreel-compare, chromium, Pillow, and odiff where
`bash scripts/peers/compare/install.sh` puts it. `--before` adds a column for another build.
"""
import argparse, pathlib, re, statistics, subprocess, sys, tempfile

HERE = pathlib.Path(__file__).resolve().parent
WORDS = ("Acme Cloud keeps your projects in sync across every device. Invite your team, share folders and "
         "review changes side by side. Plans start free and grow with you. ")


def big_page(changed):
    """Ten 760-px columns of text over 8000x8000; `changed` adds the three changes."""
    body = "margin:0;background:#f8fafc;font:16px/1.5 sans-serif;color:#0f172a"
    cols = []
    for c in range(10):
        text = "".join(f"<p>{WORDS * 6}</p>" for _ in range(40))
        if changed and c == 4:
            text = text.replace("Invite", "Inform", 1)
        cols.append(f"<div style='width:760px;padding:20px;float:left'><h2 style='color:#1e4080'>Section {c}</h2>{text}</div>")
    extra = ""
    if changed:
        extra = ("<div style='position:absolute;left:1200px;top:900px;width:48px;height:32px;background:#dc2626'></div>"
                 "<div style='position:absolute;left:6900px;top:7400px;width:200px;height:12px;background:#2563eb'></div>")
    return f"<!doctype html><meta charset=utf-8><body style='{body}'>{''.join(cols)}{extra}</body>"


def shoot(html, png, size):
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--force-device-scale-factor=1", f"--window-size={size},{size}", f"--screenshot={png}",
                    html.as_uri()], check=True, capture_output=True, timeout=600)


def batch(checkout, to):
    """Each judgement widget pair pasted into the page at three places: 33 pairs."""
    from PIL import Image
    fixtures = checkout / "crates/simreel-compare/tests/fixtures/judgement"
    page = Image.open(fixtures / "page.png").convert("RGB")
    n = 0
    for case in sorted(p for p in fixtures.iterdir() if p.is_dir()):
        for at in [(40, 100), (340, 300), (640, 500)]:
            for side, folder in (("expected", "e"), ("actual", "a")):
                img = page.copy()
                img.paste(Image.open(case / f"{side}.png").convert("RGB"), at)
                (to / folder).mkdir(parents=True, exist_ok=True)
                img.save(to / folder / f"{n:02}.png")
            n += 1
    return n


def timed(cmd, runs):
    """Median wall seconds and peak MB of `cmd` over `runs` runs."""
    walls, peaks = [], []
    for _ in range(runs):
        r = subprocess.run(["/usr/bin/time", "-f", "@@ %e %M"] + cmd, capture_output=True, text=True)
        wall, kb = re.findall(r"@@ ([\d.]+) (\d+)", r.stderr)[-1]
        walls.append(float(wall))
        peaks.append(int(kb) / 1024)
    return statistics.median(walls), max(peaks)


def odiff_server(pairs, work, runs):
    script = work / "server.js"
    script.write_text(f"""const {{ ODiffServer }} = require({str(HERE / 'node_modules/odiff-bin')!r});
(async () => {{
  const t0 = process.hrtime.bigint();
  const s = new ODiffServer();
  let differ = 0;
  for (let i = 0; i < {pairs}; i++) {{
    const n = String(i).padStart(2, '0');
    const r = await s.compare('{work}/e/' + n + '.png', '{work}/a/' + n + '.png', '{work}/od-' + n + '.png', {{ antialiasing: true }});
    if (!r.match) differ++;
  }}
  console.log(Number(process.hrtime.bigint() - t0) / 1e9, differ);
  s.stop();
  process.exit(0);
}})();
""")
    got = [subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=120).stdout.split() for _ in range(runs)]
    return statistics.median(float(g[0]) for g in got), int(got[0][1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("--before", help="another simreel-compare binary (an older build) for a column beside ours")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", help="keep the pictures here (default: a temporary folder)")
    args = ap.parse_args()
    checkout = pathlib.Path(args.checkout).resolve()
    ours = checkout / "target/release/simreel-compare"
    odiff = HERE / "node_modules/@odiff/linux-x64/odiff"
    for need in (ours, odiff):
        if not need.exists():
            sys.exit(f"missing {need} (cargo build --release -p simreel-compare; bash {HERE}/install.sh)")
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="pages-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    big = work / "big"
    big.mkdir(exist_ok=True)
    for name, changed in (("a", False), ("b", True)):
        if not (big / f"{name}.png").exists():
            (big / f"{name}.html").write_text(big_page(changed))
            shoot(big / f"{name}.html", big / f"{name}.png", 8000)
    pairs = batch(checkout, work / "pages")
    tools = [("simreel-compare", str(ours))] + ([("before", args.before)] if args.before else [])
    rows = {}
    for label, binary in tools:
        rows.setdefault("8000x8000, three changes", []).append(
            (label, timed([binary, "compare", str(big / "a.png"), str(big / "b.png"), "--out", str(work / f"out-{label}"), "-q"], args.runs)))
        rows.setdefault(f"{pairs} pairs of 1280x800 pages", []).append(
            (label, timed([binary, "compare", str(work / "pages/e"), str(work / "pages/a"), "--out", str(work / f"out-{label}"), "-q"], args.runs)))
    rows["8000x8000, three changes"].append(
        ("odiff", timed([str(odiff), str(big / "a.png"), str(big / "b.png"), str(work / "od.png"), "--antialiasing"], args.runs)))
    seconds, differ = odiff_server(pairs, work / "pages", args.runs)
    rows[f"{pairs} pairs of 1280x800 pages"].append(("odiff server", (seconds, None)))
    print(f"| case | {' | '.join(label for label, _ in rows['8000x8000, three changes'])} |")
    print("|---" * (len(rows["8000x8000, three changes"]) + 1) + "|")
    for case, cells in rows.items():
        shown = [f"{s:.2f} s" + (f", {mb:.0f} MB" if mb else "") for _, (s, mb) in cells]
        print(f"| {case} | {' | '.join(shown)} |")
    print(f"(odiff's server: {differ} of {pairs} pairs differ; pictures in {work})")


if __name__ == "__main__":
    main()
