'use strict';
// The installed package's API and command, against its own binary: run with `node --test` in a
// project that has `simreel-compare` installed (scripts/test-packages does). Needs no browser.

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');
const zlib = require('node:zlib');

const simreel = require('simreel-compare');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
/** A white w×h RGB PNG with a `box` ({x, y, w, h, rgb}) painted on it. */
function png(w, h, box) {
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + 3 * w, 0xff);
    row[0] = 0;
    for (let x = 0; x < w; x++) {
      if (box && x >= box.x && x < box.x + box.w && y >= box.y && y < box.y + box.h) {
        row.set(box.rgb, 1 + 3 * x);
      }
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'simreel-compare-api-'));
test.after(() => fs.rmSync(work, { recursive: true, force: true }));
const blue = png(120, 80, { x: 20, y: 20, w: 60, h: 30, rgb: [0x2a, 0x6f, 0xdb] });
const red = png(120, 80, { x: 20, y: 20, w: 60, h: 30, rgb: [0xd9, 0x34, 0x2b] });
const bluePath = path.join(work, 'golden.png');
const redPath = path.join(work, 'button.png');
fs.writeFileSync(bluePath, blue);
fs.writeFileSync(redPath, red);

test('the package carries a binary for this platform', () => {
  assert.ok(simreel.platforms().includes(`${process.platform}-${process.arch}`), simreel.platforms().join());
  assert.ok(fs.existsSync(simreel.binaryPath()));
});

test('equal Buffers match', async () => {
  const out = path.join(work, 'equal');
  const r = await simreel.compare(blue, Buffer.from(blue), { out });
  assert.equal(r.match, true);
  assert.equal(r.exitCode, 0);
  assert.match(r.reason, /^pass image\.png: identical/);
  assert.equal(r.report, path.join(out, 'compare-report', 'report.html'));
  assert.ok(path.isAbsolute(r.report) && fs.existsSync(r.report));
  assert.equal(r.summary.checked, 1);
  assert.equal(r.summary.failed, 0);
});

test('different files do not match, and the reason is the verdict line', async () => {
  const out = path.join(work, 'differ');
  const r = await simreel.compare(bluePath, redPath, { out });
  assert.equal(r.match, false);
  assert.equal(r.exitCode, 4);
  assert.match(r.reason, /^FAIL button\.png: different: \d+ pixels/);
  assert.equal(r.summary.failed, 1);
  assert.equal(r.summary.frames[0].passed, false);
  assert.equal(r.summary.frames[0].verdict, r.reason.replace(/^FAIL button\.png: /, ''));
  assert.ok(fs.existsSync(r.report));
});

test('options reach the comparator', async () => {
  const out = path.join(work, 'tolerant');
  const r = await simreel.compare(bluePath, redPath, { out, maxPixels: '100%', maxRegion: 1e9, channel: 2, threads: 1 });
  assert.equal(r.match, true, r.reason);
  assert.match(r.summary.frames[0].tolerance_reason, /max_region 1000000000/);
  const strict = await simreel.compare(bluePath, redPath, { out, maxPixels: '100%', maxRegion: 1e9, channel: 255 });
  assert.equal(strict.match, true);
  const toml = path.join(work, 'tolerance.toml');
  fs.writeFileSync(toml, 'max_pixels = 1.0\nmax_region = 1000000000\nreason = "a red button is fine"\n');
  const fromFile = await simreel.compare(bluePath, redPath, { out, tolerance: toml });
  assert.equal(fromFile.match, true, fromFile.reason);
});

test('bad input rejects with the exit code and stderr', async () => {
  await assert.rejects(simreel.compare(blue, Buffer.from('not a picture\n'), { out: path.join(work, 'bad') }), (e) => {
    assert.equal(e.exitCode, 2);
    assert.match(e.stderr, /not a picture/);
    assert.match(e.message, /exited with code 2/);
    return true;
  });
  await assert.rejects(simreel.compare(blue, blue, { out: path.join(work, 'bad'), channel: 'abc' }), (e) => {
    assert.equal(e.exitCode, 2);
    assert.match(e.stderr, /--channel abc/);
    return true;
  });
  await assert.rejects(simreel.compare(bluePath, path.join(work, 'missing.png'), { out: path.join(work, 'bad') }), /exited with code 2/);
  await assert.rejects(simreel.compare(blue, blue, { max_pixels: 3 }), TypeError);
  await assert.rejects(simreel.compare(blue, 42), TypeError);
});

test('SIMREEL_COMPARE_BIN overrides the binary', async (t) => {
  const saved = process.env.SIMREEL_COMPARE_BIN;
  t.after(() => {
    if (saved === undefined) delete process.env.SIMREEL_COMPARE_BIN;
    else process.env.SIMREEL_COMPARE_BIN = saved;
  });
  process.env.SIMREEL_COMPARE_BIN = path.join(work, 'no-such-binary');
  assert.throws(() => simreel.binaryPath(), /SIMREEL_COMPARE_BIN is set to .*no-such-binary/);
  if (process.platform !== 'win32') {
    const fake = path.join(work, 'fake-compare');
    fs.writeFileSync(fake, '#!/bin/sh\necho "error: something else went wrong" >&2\nexit 1\n', { mode: 0o755 });
    process.env.SIMREEL_COMPARE_BIN = fake;
    await assert.rejects(simreel.compare(blue, blue, { out: path.join(work, 'fake') }), (e) => {
      assert.equal(e.exitCode, 1);
      assert.match(e.stderr, /something else went wrong/);
      return true;
    });
  }
});

test('a platform without a binary is named, with the variable', (t) => {
  const arch = Object.getOwnPropertyDescriptor(process, 'arch');
  t.after(() => Object.defineProperty(process, 'arch', arch));
  Object.defineProperty(process, 'arch', { value: 'mips', configurable: true, enumerable: true });
  const saved = process.env.SIMREEL_COMPARE_BIN;
  delete process.env.SIMREEL_COMPARE_BIN;
  try {
    assert.throws(
      () => simreel.binaryPath(),
      (e) => {
        assert.equal(e.code, 'SIMREEL_COMPARE_NO_BINARY');
        assert.match(e.message, new RegExp(`no binary for this platform \\(${process.platform}-mips\\)`));
        assert.match(e.message, /SIMREEL_COMPARE_BIN/);
        return true;
      },
    );
  } finally {
    if (saved !== undefined) process.env.SIMREEL_COMPARE_BIN = saved;
  }
});

test('the simreel-compare command runs the binary with its exit code', () => {
  const shim = path.join(process.cwd(), 'node_modules', '.bin', process.platform === 'win32' ? 'simreel-compare.cmd' : 'simreel-compare');
  assert.ok(fs.existsSync(shim), `${shim} (run this test from the project that installed the package)`);
  const run = (...args) => spawnSync(shim, args, { encoding: 'utf8', shell: process.platform === 'win32' });
  const same = run('compare', bluePath, bluePath, '--out', path.join(work, 'cli-same'));
  assert.equal(same.status, 0, same.stderr);
  assert.match(same.stderr, /pass golden\.png: identical/);
  const differ = run('compare', bluePath, redPath, '--out', path.join(work, 'cli-differ'));
  assert.equal(differ.status, 4);
  assert.match(differ.stderr, /FAIL button\.png: different/);
  assert.equal(run('compare', bluePath, redPath, '--channel', 'abc').status, 2);
});

test('simreel-compare/playwright: the system browser, the update switches and CI as documented', () => {
  const pw = require('simreel-compare/playwright');
  const saved = { CHROMIUM: process.env.CHROMIUM, PATH: process.env.PATH, UPDATE_GOLDENS: process.env.UPDATE_GOLDENS, CI: process.env.CI };
  try {
    process.env.CHROMIUM = '/opt/my/chrome';
    const o = pw.systemChromium({ args: ['--mute-audio'], slowMo: 5 });
    assert.equal(o.executablePath, '/opt/my/chrome');
    assert.deepEqual(o.args.slice(-1), ['--mute-audio']);
    assert.equal(o.slowMo, 5);
    // no CHROMIUM and nothing on the PATH: Playwright's own browser
    delete process.env.CHROMIUM;
    process.env.PATH = fs.mkdtempSync(path.join(os.tmpdir(), 'no-browser-'));
    assert.deepEqual(pw.systemChromium(), {});
    // a chromium on the PATH is found
    const fake = path.join(process.env.PATH, 'chromium');
    fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
    assert.equal(pw.systemChromium().executablePath, fake);

    delete process.env.UPDATE_GOLDENS;
    assert.equal(pw.updating({ config: { updateSnapshots: 'missing' } }), false);
    assert.equal(pw.updating({ config: { updateSnapshots: 'all' } }), true);
    assert.equal(pw.updating({ config: { updateSnapshots: 'changed' } }), true);
    process.env.UPDATE_GOLDENS = '1';
    assert.equal(pw.updating({ config: { updateSnapshots: 'none' } }), true);
    for (const [ci, on] of [['', false], ['0', false], ['false', false], ['true', true], ['1', true]]) {
      process.env.CI = ci;
      assert.equal(pw.onCi(), on, `CI=${ci}`);
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

test('Buffers keep their names, and a failed Buffer can be accepted from the report', async () => {
  const out = path.join(work, 'named');
  const r = await simreel.compare(blue, red, { out, name: 'button' });
  assert.equal(r.match, false);
  assert.match(r.reason, /^FAIL button\.png: different/);
  // the bytes stay with the report, where its accept command copies from
  const kept = path.join(out, 'inputs', 'actual', 'button.png');
  assert.deepEqual(fs.readFileSync(kept), red);
  const bless = r.summary.frames[0].bless;
  assert.ok(bless && bless.includes(kept), bless);
  // a path on one side names a Buffer on the other
  const golden = path.join(work, 'goldens', 'save.png');
  fs.mkdirSync(path.dirname(golden), { recursive: true });
  fs.writeFileSync(golden, blue);
  const s = await simreel.compare(golden, red, { out: path.join(work, 'named-by-path') });
  assert.match(s.reason, /^FAIL save\.png: different/);
  await assert.rejects(simreel.compare(blue, red, { out, name: '../x.png' }), /not a file name/);
});
