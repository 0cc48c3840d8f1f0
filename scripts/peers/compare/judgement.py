#!/usr/bin/env python3
"""The default judgement on real pairs, with the peers' verdicts beside: Chromium (headless) screenshots
of small widgets, each drawn twice, once as is and once with one change a person sees (square corners,
a faint 1-px border gone, an icon moved 2 px, a logo moved 1 px, an emoji swapped for its neighbour, a
shade redder) or one they do not (a disc, a rounded button, a line of text moved a quarter or half a
pixel; the same page drawn again). Every case at 96x64 (the widget alone) and at 1280x800 (the widget
in a page of text).

    scripts/peers/compare/judgement.py CHECKOUT [--pairs DIR] [--out FILE.md]

Needs CHECKOUT/target/release/simreel-compare, chromium, and for the emoji fonts-noto-color-emoji.
Peers, where `bash scripts/peers/compare/install.sh` put them: pixelmatch at its default threshold
0.1 with no pixel allowed (what pytest's pixelmatch plugins and odiff's users start from), Playwright's
toHaveScreenshot default (pixelmatch threshold 0.2, anti-aliased pixels ignored, 0 pixels allowed),
and odiff 4.5 with --antialiasing. `--pairs DIR` keeps the pairs (the suite's fixtures come from here:
tests/judgement/). Nothing here is a test; the suite checks the committed pairs.
"""
import argparse, json, pathlib, shutil, subprocess, sys, tempfile

HERE = pathlib.Path(__file__).resolve().parent

# (folder, name, must, base markup, changed markup): markup goes into a 96x64 box
EMOJI = "font: 15px 'Noto Color Emoji'"
BUTTON = ("<button style='position:absolute;left:14px;top:18px;width:68px;height:28px;border:0;border-radius:{r}px;"
          "background:{bg};color:white;font:600 13px sans-serif'>Save</button>")
CARD = ("<div style='position:absolute;left:10px;top:10px;width:74px;height:42px;background:white;border-radius:4px;"
        "{border}'></div>")
ICON = ("<svg style='position:absolute;left:{x}px;top:24px' width='16' height='16' viewBox='0 0 16 16'>"
        "<path d='M2 8h9M8 4l4 4-4 4' stroke='#334155' stroke-width='2' fill='none' stroke-linecap='round'/></svg>")
LOGO = ("<svg style='position:absolute;left:{x}px;top:18px' width='28' height='28' viewBox='0 0 28 28'>"
        "<circle cx='14' cy='14' r='12' fill='#7c3aed'/><path d='M8 15l4 4 8-9' stroke='white' stroke-width='3' "
        "fill='none'/></svg>")
DISC = "<svg width='96' height='64' style='position:absolute;left:0;top:0'><circle cx='{x}' cy='32' r='18' fill='#0f766e'/></svg>"
PILL = ("<svg width='96' height='64' style='position:absolute;left:0;top:0'><rect x='{x}' y='{y}' width='64' height='26' "
        "rx='8' fill='#2563eb'/></svg>")
TEXT = ("<svg width='96' height='64' style='position:absolute;left:0;top:0'><text x='{x}' y='38' "
        "style='font:14px sans-serif' fill='#0f172a'>Hello, world</text></svg>")
CASES = [
    ("square-corners", "square corners", "fail", BUTTON.format(r=6, bg="#2563eb"), BUTTON.format(r=0, bg="#2563eb")),
    ("border-gone", "faint 1-px border gone", "fail", CARD.format(border="box-shadow:0 0 0 1px #e2e8f0"), CARD.format(border="")),
    ("icon-2px", "icon moved 2 px", "fail", ICON.format(x=40), ICON.format(x=42)),
    ("logo-1px", "logo moved 1 px", "fail", LOGO.format(x=34), LOGO.format(x=35)),
    ("emoji-swap", "emoji swapped (😀→😃)", "fail", f"<span style=\"position:absolute;left:40px;top:20px;{EMOJI}\">😀</span>",
     f"<span style=\"position:absolute;left:40px;top:20px;{EMOJI}\">😃</span>"),
    ("shade-redder", "button a shade redder", "fail", BUTTON.format(r=6, bg="#2563eb"), BUTTON.format(r=6, bg="#2a63eb")),
    ("disc-quarter-px", "disc moved ¼ px", "pass", DISC.format(x=48), DISC.format(x=48.25)),
    ("disc-half-px", "disc moved ½ px", "pass", DISC.format(x=48), DISC.format(x=48.5)),
    ("pill-third-px", "rounded button moved ⅓ px", "pass", PILL.format(x=16, y=19), PILL.format(x=16.33, y=19.33)),
    ("text-quarter-px", "text moved ¼ px", "pass", TEXT.format(x=8), TEXT.format(x=8.25)),
    ("drawn-again", "drawn again", "pass", BUTTON.format(r=6, bg="#2563eb"), BUTTON.format(r=6, bg="#2563eb")),
]

PARAGRAPH = ("Acme Cloud keeps your projects in sync across every device. Invite your team, share folders and review "
             "changes side by side. Plans start free and grow with you. ") * 3


def page(widget, large):
    body = "margin:0;background:#f8fafc;font:16px/1.5 sans-serif;color:#0f172a"
    box = f"<div style='position:relative;width:96px;height:64px;background:#f8fafc'>{widget}</div>"
    if not large:
        return f"<!doctype html><meta charset='utf-8'><body style='{body}'>{box}</body>"
    text = "".join(f"<p>{PARAGRAPH}</p>" for _ in range(4))
    return (f"<!doctype html><meta charset='utf-8'><body style='{body}'><header style='background:#0f172a;color:white;"
            f"padding:18px 40px;font-size:22px'>Acme Cloud</header><main style='display:flex;gap:40px;padding:40px'>"
            f"<div style='flex:none'>{box}</div><article style='flex:1'>{text}</article></main></body>")


def shoot(chromium, html, png, w, h):
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--force-device-scale-factor=1", f"--window-size={w},{h}", f"--screenshot={png}",
                    html.as_uri()], check=True, capture_output=True)


def peers(expected, actual, work):
    """Each peer's verdict ("pass"/"fail") or None where it is not installed."""
    out = {}
    pm = HERE / "node_modules/pixelmatch"
    if pm.exists():
        script = HERE / "node_modules/.judge.mjs"
        script.write_text(
            "import fs from 'fs'; import {PNG} from 'pngjs'; import pixelmatch from 'pixelmatch';\n"
            "const [a, b] = process.argv.slice(2).map(p => PNG.sync.read(fs.readFileSync(p)));\n"
            "const n = (t, aa) => pixelmatch(a.data, b.data, null, a.width, a.height, {threshold: t, includeAA: aa});\n"
            "console.log(JSON.stringify([n(0.1, false), n(0.2, false)]));\n")
        d01, d02 = json.loads(subprocess.run(["node", str(script), str(expected), str(actual)], capture_output=True,
                                             text=True, check=True, cwd=HERE).stdout)
        out["pixelmatch 0.1"] = "fail" if d01 > 0 else "pass"
        out["Playwright default"] = "fail" if d02 > 0 else "pass"
    odiff = next(iter(sorted((HERE / "node_modules/@odiff").glob("*/odiff"))), None) if (HERE / "node_modules/@odiff").exists() else None
    if odiff is None and (HERE / "node_modules/.bin/odiff").exists():
        odiff = HERE / "node_modules/.bin/odiff"
    if odiff:
        r = subprocess.run([str(odiff), str(expected), str(actual), str(work / "odiff.png"), "--antialiasing"], capture_output=True)
        out["odiff --antialiasing"] = "pass" if r.returncode == 0 else "fail"
    return out


# where the 96x64 box lies on the 1280x800 page (the header's 70 px, main's padding, Chromium's layout)
BOX = (40, 109)


def fixtures(pairs, to):
    """The suite's fixtures: each 96x64 pair, and the 1280x800 page that every 1280x800 screenshot is
    with its 96x64 pair pasted at BOX (checked here, pixel for pixel), so the page is stored once."""
    from PIL import Image, ImageChops
    page = None
    for d in sorted((pairs / "1280x800").iterdir()):
        for which in ("expected", "actual"):
            big = Image.open(d / f"{which}.png").convert("RGBA")
            small = Image.open(pairs / "96x64" / d.name / f"{which}.png").convert("RGBA")
            page = page or big.copy()
            made = page.copy()
            made.paste(small, BOX)
            if ImageChops.difference(made, big).getbbox() is not None:
                sys.exit(f"{d.name}/{which}: the 1280x800 screenshot is not the page with its 96x64 pair at {BOX}")
    to.mkdir(parents=True, exist_ok=True)
    page.save(to / "page.png", optimize=True)
    for d in sorted((pairs / "96x64").iterdir()):
        (to / d.name).mkdir(exist_ok=True)
        for which in ("expected", "actual"):
            Image.open(d / f"{which}.png").convert("RGB").save(to / d.name / f"{which}.png", optimize=True)
        shutil.copy(d / "must", to / d.name / "must")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout")
    ap.add_argument("--pairs", help="keep the pairs here: SIZE/CASE/{expected,actual}.png")
    ap.add_argument("--out", help="write the Markdown table here too")
    ap.add_argument("--before", help="another simreel-compare binary (an older build) for a column beside ours")
    ap.add_argument("--fixtures", help="write the suite's fixtures here (crates/simreel-compare/tests/fixtures/judgement): "
                    "the 96x64 pairs and one 1280x800 page, checked to give every 1280x800 pair with a pair pasted at BOX")
    args = ap.parse_args()
    ours = pathlib.Path(args.checkout).resolve() / "target/release/simreel-compare"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not ours.exists() or not chromium:
        sys.exit(f"needs {ours} (cargo build --release -p simreel-compare) and chromium")
    work = pathlib.Path(tempfile.mkdtemp(prefix="judgement."))
    pairs = pathlib.Path(args.pairs) if args.pairs else work / "pairs"
    rows, columns = [], []
    for size, (w, h) in [("96x64", (96, 64)), ("1280x800", (1280, 800))]:
        for folder, name, must, base, changed in CASES:
            d = pairs / size / folder
            d.mkdir(parents=True, exist_ok=True)
            for which, markup in [("expected", base), ("actual", changed)]:
                html = work / f"{which}.html"
                html.write_text(page(markup, size != "96x64"))
                shoot(chromium, html, d / f"{which}.png", w, h)
            (d / "must").write_text(must + "\n")
            r = subprocess.run([str(ours), "compare", str(d / "expected.png"), str(d / "actual.png"), "--out", str(work / "report")],
                               capture_output=True, text=True)
            said = [line.split(": ", 1)[-1] for line in r.stderr.strip().splitlines()[:1]]
            verdict = "pass" if r.returncode == 0 else "fail" if r.returncode == 4 else f"exit {r.returncode}"
            others = peers(d / "expected.png", d / "actual.png", work)
            if args.before:
                b = subprocess.run([args.before, "compare", str(d / "expected.png"), str(d / "actual.png"), "--out", str(work / "before")],
                                   capture_output=True, text=True)
                others = {"simreel-compare before": "pass" if b.returncode == 0 else "fail" if b.returncode == 4 else f"exit {b.returncode}",
                          **others}
            columns = columns or list(others)
            rows.append((size, name, must, verdict, others, said[-1] if said else ""))
    if args.fixtures:
        fixtures(pairs, pathlib.Path(args.fixtures))
    head = ["size", "pair", "a person", "simreel-compare", *columns, "what simreel-compare says"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size, name, must, verdict, others, said in rows:
        mark = lambda v: v if v == must else f"**{v}**"
        cells = [size, name, must, mark(verdict), *[mark(others.get(c, "-")) for c in columns], said.replace("|", "\\|")]
        lines.append("| " + " | ".join(cells) + " |")
    wrong = sum(1 for r in rows if r[3] != r[2])
    lines.append("")
    lines.append(f"simreel-compare wrong on {wrong} of {len(rows)} pairs; a verdict in bold is not what a person sees.")
    text = "\n".join(lines)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text + "\n")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
