#!/usr/bin/env python3
"""`simreel compare` against odiff (npm odiff-bin), pixelmatch (npm, Playwright's comparator) and dify
(crate), whole-process wall time, on the same pairs: the shipped golden frames (identical, and with an
8x8 contrast patch at a seeded place) and large renders (1920x1080 and 4096x2304 of wind_meadow, made
here with `simreel render`), one thread (`taskset -c 0`) and all cores. Every tool writes its diff
picture (simreel: its whole report), as a user runs it. Verdicts are checked too: identical pairs
must pass and patched ones fail, for every tool.

Usage (from anywhere; peers install from their registries, not in CI):
  bash scripts/peers/compare/install.sh
  /path/to/python-with-Pillow scripts/peers/compare/compare_peers.py CHECKOUT [--runs N] [--seed S]
Needs CHECKOUT/target/release/simreel. Writes scripts/peers/results/compare_peers.{md,json}."""
import argparse, json, os, pathlib, platform, random, re, shutil, statistics, subprocess, sys, time
from PIL import Image

HERE = pathlib.Path(__file__).resolve().parent
PEERS = HERE.parent
ap = argparse.ArgumentParser()
ap.add_argument('checkout')
ap.add_argument('--runs', type=int, default=5)
ap.add_argument('--seed', type=int, default=4242)
ap.add_argument('--slow-runs', type=int, default=1, help='runs of pixelmatch, an order of magnitude slower than the others')
args = ap.parse_args()
repo = pathlib.Path(args.checkout).resolve()
SIMREEL = repo / 'target/release/simreel'
# the native binary, not npm's node shim in .bin (which adds node's start-up to every call)
ODIFF = next(iter(sorted((HERE / 'node_modules/@odiff').glob('*/odiff'))), HERE / 'node_modules/.bin/odiff')
PIXELMATCH = HERE / 'node_modules/.bin/pixelmatch'
DIFY = PEERS / '.work/dify/bin/dify'
work = PEERS / '.work/compare'
shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
rng = random.Random(args.seed)


def patched(src, dst):
    im = Image.open(src).convert('RGBA')
    w, h = im.size
    px = im.load()
    x0, y0 = rng.randrange(w - 8), rng.randrange(h - 8)
    for x in range(x0, x0 + 8):
        for y in range(y0, y0 + 8):
            a = px[x, y]
            px[x, y] = tuple(0 if c >= 128 else 255 for c in a[:3]) + (a[3],)
    im.save(dst)


# the sets: (name, [(expected, actual)], must fail)
sets = []
gold = sorted(p for p in (repo / 'tests/golden').rglob('frame_*.png') if re.fullmatch(r'frame_\d+\.png', p.name))
for kind in ('identical', 'patched'):
    e_dir, a_dir = work / f'goldens-{kind}' / 'expected', work / f'goldens-{kind}' / 'actual'
    pairs = []
    for i, g in enumerate(gold):
        e, a = e_dir / f'{i:03}.png', a_dir / f'{i:03}.png'
        e.parent.mkdir(parents=True, exist_ok=True)
        a.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(g, e)
        shutil.copy(g, a) if kind == 'identical' else patched(g, a)
        pairs.append((e, a))
    sets.append((f'{len(gold)} shipped goldens, {kind}', pairs, kind == 'patched', (e_dir, a_dir)))
for (w, h) in ((1920, 1080), (4096, 2304)):
    out = work / f'render-{w}'
    subprocess.run([str(SIMREEL), 'render', str(repo / 'scenes/wind_meadow.toml'), '--size', f'{w}x{h}', '--frames', '40',
                    '--format', 'png', '--out', str(out)], check=True, stderr=subprocess.DEVNULL)
    frame = next((out / 'wind_meadow').glob('frame_*.png'))
    for kind in ('identical', 'patched'):
        e_dir, a_dir = work / f'big-{w}-{kind}' / 'expected', work / f'big-{w}-{kind}' / 'actual'
        e_dir.mkdir(parents=True)
        a_dir.mkdir(parents=True)
        e, a = e_dir / 'frame.png', a_dir / 'frame.png'
        shutil.copy(frame, e)
        shutil.copy(frame, a) if kind == 'identical' else patched(frame, a)
        sets.append((f'{w}x{h}, {kind}', [(e, a)], kind == 'patched', (e_dir, a_dir)))

scratch = work / 'out'
tools = {
    'simreel compare': lambda e, a, t: [str(SIMREEL), 'compare', str(e), str(a), '--out', str(scratch), '-q'] + (['--threads', '1'] if t == 1 else []),
    'odiff': lambda e, a, t: [str(ODIFF), str(e), str(a), str(scratch / 'odiff.png')],
    'pixelmatch': lambda e, a, t: [str(PIXELMATCH), str(e), str(a), str(scratch / 'pm.png'), '0.1'],
    'dify': lambda e, a, t: [str(DIFY), str(e), str(a), '-o', str(scratch / 'dify.png')],
}
tools = {k: v for k, v in tools.items() if pathlib.Path(v('x', 'y', 0)[0]).exists()}
scratch.mkdir()


def run_set(cmd, pairs, threads):
    """Wall time of every pair's process, one after another; exit codes."""
    pin = ['taskset', '-c', '0'] if threads == 1 else []
    codes = []
    t0 = time.perf_counter()
    for e, a in pairs:
        codes.append(subprocess.run(pin + cmd(e, a, threads), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode)
    return time.perf_counter() - t0, codes


results = []
for name, pairs, must_fail, (e_dir, a_dir) in sets:
    for threads in (1, os.cpu_count()):
        row = {'set': name, 'threads': threads, 'pairs': len(pairs), 'tools': {}}
        runners = dict(tools)
        if len(pairs) > 1:  # simreel also compares the folders in one process
            runners['simreel compare (folders)'] = None
        samples = {k: [] for k in runners}
        verdicts = {}
        for r in range(args.runs + 1):  # round-robin; the first round is a warm-up
            for k, cmd in runners.items():
                if k == 'pixelmatch' and r > args.slow_runs:
                    continue
                if cmd is None:
                    one = lambda e, a, t: tools['simreel compare'](e_dir, a_dir, t)
                    secs, codes = run_set(one, [(None, None)], threads)
                else:
                    secs, codes = run_set(cmd, pairs, threads)
                if r:
                    samples[k].append(secs)
                verdicts[k] = sum(c != 0 for c in codes) if cmd is not None else (len(pairs) if codes[0] == 4 else 0)
        for k in runners:
            row['tools'][k] = {'median_s': statistics.median(samples[k]), 'samples': samples[k], 'flagged': verdicts[k],
                               'right': verdicts[k] == (len(pairs) if must_fail else 0)}
        results.append(row)
        print(name, threads, {k: round(v['median_s'], 4) for k, v in row['tools'].items()}, file=sys.stderr)

lscpu = subprocess.run(['lscpu'], capture_output=True, text=True).stdout
cpu = next((l.split(':', 1)[1].strip() for l in lscpu.splitlines() if l.startswith('Model name')), platform.processor())
versions = {
    'simreel': subprocess.run([str(SIMREEL), '--version'], capture_output=True, text=True).stdout.strip(),
    'odiff': (lambda r: (r.stdout + r.stderr).strip())(subprocess.run([str(ODIFF), '--version'], capture_output=True, text=True)) if 'odiff' in tools else None,
    'pixelmatch': json.loads((HERE / 'node_modules/pixelmatch/package.json').read_text())['version'] if 'pixelmatch' in tools else None,
    'dify': subprocess.run([str(DIFY), '--version'], capture_output=True, text=True).stdout.strip() if 'dify' in tools else None,
}
res = PEERS / 'results'
(res / 'compare_peers.json').write_text(json.dumps({'cpu': cpu, 'cores': os.cpu_count(), 'runs': args.runs, 'seed': args.seed,
                                                   'versions': versions, 'results': results}, indent=1))
names = list(results[0]['tools'].keys())
names += [k for r in results for k in r['tools'] if k not in names]
lines = [f'# simreel compare against odiff, pixelmatch and dify', '',
         f'{cpu}, {os.cpu_count()} cores; median of {args.runs} runs after a warm-up, whole-process wall time for every pair of the set '
         '(one process per pair; "folders": one process for the whole set); ✓ every verdict right (identical pass, patched fail).', '',
         f'Versions: {versions}', '',
         '| set | threads | ' + ' | '.join(names) + ' |', '|---|---|' + '---|' * len(names)]
for r in results:
    cells = []
    for k in names:
        t = r['tools'].get(k)
        cells.append('' if t is None else f"{t['median_s'] * 1000:.0f} ms {'✓' if t['right'] else '✗ ' + str(t['flagged']) + ' flagged'}")
    lines.append(f"| {r['set']} | {r['threads']} | " + ' | '.join(cells) + ' |')
peers = [k for k in names if not k.startswith('simreel')]
lines += ['', 'Ratios (peer time / simreel compare time, one process per pair; above 1: simreel faster):', '',
          '| set | threads | ' + ' | '.join(peers) + ' |', '|---|---|' + '---|' * len(peers)]
for r in results:
    ours = r['tools']['simreel compare']['median_s']
    lines.append(f"| {r['set']} | {r['threads']} | " + ' | '.join(f"{r['tools'][k]['median_s'] / ours:.2f}" for k in peers) + ' |')
(res / 'compare_peers.md').write_text('\n'.join(lines) + '\n')
print('\n'.join(lines))
