'use strict';
// simreel-compare for Node: runs the comparator binary that this package carries for the platform
// (bin/<process.platform>-<process.arch>/simreel-compare[.exe]) and reads the summary.json it
// writes. No runtime dependencies.

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const ENV_BIN = 'SIMREEL_COMPARE_BIN';
const OPTIONS = ['channel', 'maxPixels', 'maxRegion', 'flipMean', 'flipP99', 'tolerance', 'out', 'threads', 'name'];

/** An error of the comparator (bad input, an option it refuses) or of finding or running it. */
class SimreelCompareError extends Error {
  constructor(message, fields) {
    super(message);
    this.name = 'SimreelCompareError';
    Object.assign(this, fields);
  }
}

/** The platforms whose binaries this package carries ("linux-x64", ...). */
function platforms() {
  try {
    return fs
      .readdirSync(path.join(__dirname, 'bin'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The binary compare() runs: $SIMREEL_COMPARE_BIN where set, else the one this package carries for
 * this platform. Throws (code 'SIMREEL_COMPARE_NO_BINARY') naming the platform and the variable
 * when there is none.
 */
function binaryPath() {
  const override = process.env[ENV_BIN];
  if (override) {
    if (!fs.existsSync(override)) {
      throw new SimreelCompareError(`${ENV_BIN} is set to ${override}, which does not exist`, {
        code: 'SIMREEL_COMPARE_NO_BINARY',
      });
    }
    return override;
  }
  const platform = `${process.platform}-${process.arch}`;
  const exe = process.platform === 'win32' ? 'simreel-compare.exe' : 'simreel-compare';
  const file = path.join(__dirname, 'bin', platform, exe);
  if (!fs.existsSync(file)) {
    const shipped = platforms();
    throw new SimreelCompareError(
      `simreel-compare has no binary for this platform (${platform}); this package carries ` +
        `${shipped.length ? shipped.join(', ') : 'none'}. Build the comparator for ${platform} ` +
        `(cargo build --release -p simreel-compare) and set ${ENV_BIN} to the binary's path.`,
      { code: 'SIMREEL_COMPARE_NO_BINARY', platform },
    );
  }
  if (process.platform !== 'win32') {
    // a package manager that drops the executable bit (some unpack tarballs with a fixed mode)
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      try {
        fs.chmodSync(file, 0o755);
      } catch {
        // left to spawn, which then says what is wrong
      }
    }
  }
  return file;
}

/** An extension that says what the bytes are (the comparator reads the content, not the name). */
function extensionOf(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 12));
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return '.png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return '.jpg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    return '.webp';
  }
  if (b.length >= 2 && b.toString('latin1', 0, 2) === 'BM') return '.bmp';
  if (b.length >= 4 && (b.toString('latin1', 0, 4) === 'II*\0' || b.toString('latin1', 0, 4) === 'MM\0*')) {
    return '.tiff';
  }
  return '.img';
}

/**
 * The name a Buffer is compared under: options.name, else the file name of the side that is a
 * path ("button.png"), else "image"; an extension that says what the bytes are is added when the
 * name has none.
 */
function nameOf(expected, actual, options) {
  let name = options.name;
  if (name == null) {
    const named = [expected, actual].find((x) => typeof x === 'string');
    name = named ? path.basename(named) : 'image';
  }
  name = String(name);
  if (name === '' || name === '.' || name === '..' || /[\\/]/.test(name)) {
    throw new TypeError(`name: ${JSON.stringify(name)} is not a file name (no folders)`);
  }
  return name;
}

/**
 * A path for `input`: itself when it is one, else a file holding the bytes in
 * <out>/inputs/<side>/<name>, kept with the report (its accept command copies from it).
 */
function fileFor(input, side, out, name) {
  if (typeof input === 'string') return path.resolve(input);
  if (input instanceof Uint8Array) {
    const dir = path.join(out, 'inputs', side);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, path.extname(name) ? name : name + extensionOf(input));
    fs.writeFileSync(file, input);
    return file;
  }
  throw new TypeError(`${side}: expected a file path (string) or a Buffer, got ${typeof input}`);
}

function commandLine(expected, actual, out, options) {
  const args = ['compare', expected, actual, '--out', out];
  const flag = (name, value) => {
    if (value !== undefined && value !== null) args.push(name, String(value));
  };
  flag('--channel', options.channel);
  flag('--max-pixels', options.maxPixels);
  flag('--max-region', options.maxRegion);
  flag('--flip-mean', options.flipMean);
  flag('--flip-p99', options.flipP99);
  flag('--tolerance', options.tolerance == null ? options.tolerance : path.resolve(String(options.tolerance)));
  flag('--threads', options.threads);
  return args;
}

function run(bin, args) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (e) {
      reject(e);
      return;
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (e) =>
      reject(new SimreelCompareError(`cannot run ${bin}: ${e.message}`, { code: e.code, cause: e })),
    );
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * The binary's verdict line for the image ("FAIL button.png: different: 1412 pixels ..."); for
 * folders, the lines of the images that failed, or the final line when all match.
 */
function reasonOf(summary, output) {
  const lines = output.split(/\r?\n/).filter((l) => l.trim() !== '');
  const frames = Array.isArray(summary.frames) ? summary.frames : [];
  const lineOf = (f) =>
    lines.find((l) => typeof f.verdict === 'string' && f.verdict && l.endsWith(`: ${f.verdict}`)) ||
    `${f.passed ? 'pass' : 'FAIL'} ${f.path || ''}: ${f.verdict}`;
  if (frames.length === 1) return lineOf(frames[0]);
  const failed = frames.filter((f) => !f.passed);
  if (failed.length) return failed.map(lineOf).join('\n');
  return lines.length ? lines[lines.length - 1] : `${frames.length} compared images match`;
}

/**
 * Compares `expected` with `actual` (file paths or Buffers; a Buffer is written to
 * <out>/inputs/<side>/<name> first, and kept with the report). Resolves when the comparator ran (match or not); rejects with an error carrying
 * the comparator's stderr when it could not compare (exit code 2: bad input; 1: other).
 */
async function compare(expected, actual, options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError('options: expected an object');
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) {
      throw new TypeError(`unknown option ${key} (simreel-compare takes ${OPTIONS.join(', ')})`);
    }
  }
  const bin = binaryPath();
  const out = path.resolve(options.out == null ? 'out' : String(options.out));
  const name = nameOf(expected, actual, options);
  // a Buffer's file stays in <out>/inputs/ with the report, whose accept command copies it
  const args = commandLine(fileFor(expected, 'expected', out, name), fileFor(actual, 'actual', out, name), out, options);
  const { code, signal, stdout, stderr } = await run(bin, args);
  if (code !== 0 && code !== 4) {
    const why = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
    throw new SimreelCompareError(
      `simreel-compare ${why}${stderr.trim() ? `: ${stderr.trim()}` : ''}`,
      { exitCode: code, signal, stderr, stdout, args: [bin, ...args] },
    );
  }
  const dir = path.join(out, 'compare-report');
  const summaryFile = path.join(dir, 'summary.json');
  let summary;
  try {
    summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  } catch (e) {
    throw new SimreelCompareError(`simreel-compare exited with code ${code} but ${summaryFile} cannot be read: ${e.message}`, {
      exitCode: code,
      stderr,
      stdout,
    });
  }
  return {
    match: code === 0,
    reason: reasonOf(summary, `${stdout}\n${stderr}`),
    report: path.join(dir, 'report.html'),
    summary,
    exitCode: code,
  };
}

module.exports = { compare, binaryPath, platforms, SimreelCompareError };
