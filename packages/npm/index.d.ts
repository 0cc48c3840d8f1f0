/// <reference types="node" />

/** How closely the pictures must agree, and where the report goes. */
export interface CompareOptions {
  /** A pixel differs when a channel moves by more than this many levels (default 2). */
  channel?: number;
  /**
   * How many pixels may differ, anti-aliasing along an edge not counted (every pixel with
   * channel 0): a count (a whole number, 40) or a share (a fraction below 1,
   * 0.001, or a string, "0.1%" or "100%"; default 0.1%). 1 is one pixel: all of them is "100%".
   */
  maxPixels?: number | string;
  /** A compact region of change weighing more than this fails (default 4). */
  maxRegion?: number;
  /** Perceptual layer: the largest mean FLIP error (0-1; default 0: off). */
  flipMean?: number;
  /** Perceptual layer: the largest 99th percentile of the FLIP error (0-1). */
  flipP99?: number;
  /** A TOML file of tolerance keys (channel, max_pixels, flip_mean, flip_p99, max_region, reason); the options above override it. */
  tolerance?: string;
  /** The report goes to `<out>/compare-report/` (default: `out` in the current directory). */
  out?: string;
  /** Worker threads (default: one per core); results do not depend on it. */
  threads?: number;
  /**
   * The file name a Buffer is compared under (default: the other side's file name, else "image"),
   * which the verdict and the report show; the Buffer is kept in `<out>/inputs/<side>/`.
   */
  name?: string;
}

/** One region of change, as summary.json lists it. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
  pixels: number;
  /** Its pixels that anti-aliasing does not explain: what the pixel budget counts. */
  unexplained: number;
  weight: number;
}

/** One compared file, as summary.json lists it. */
export interface FrameSummary {
  /** The file's path (relative to the compared folders, or the actual file's name). */
  path?: string;
  passed: boolean;
  verdict: string;
  differing_pixels: number | null;
  max_channel_diff: number | null;
  mean_abs_diff: number | null;
  flip_mean: number | null;
  flip_p99: number | null;
  heaviest_region: number | null;
  regions: Region[];
  expected_file: string | null;
  actual_file?: string;
  sha256: { expected?: string; actual?: string };
  state: string;
  tolerance_reason: string;
  /** The command that accepts a failed file (copies actual over expected). */
  bless: string | null;
  cannot_accept?: string;
  /** The stem of a failed file's images in the report folder. */
  images: string | null;
  unreadable?: boolean;
  [key: string]: unknown;
}

/** The parsed summary.json of the report. */
export interface Summary {
  adapter: string;
  /** Files compared. */
  checked: number;
  /** Files that differ. */
  failed: number;
  frames: FrameSummary[];
  sequences: unknown[];
  compared?: { expected: string; actual: string; expected_dir: string; actual_dir: string };
  [key: string]: unknown;
}

export interface CompareResult {
  /** True when the pictures agree within the tolerance (exit code 0). */
  match: boolean;
  /** The comparator's verdict line for the image, e.g. "FAIL button.png: different: 1412 pixels beyond 2 levels ...". */
  reason: string;
  /** The absolute path of report.html. */
  report: string;
  /** The parsed summary.json. */
  summary: Summary;
  /** 0 (match) or 4 (differ). */
  exitCode: number;
}

/** What compare() rejects with: the comparator could not compare (exit code 2 or 1), or could not be found or run. */
export class SimreelCompareError extends Error {
  /** 'SIMREEL_COMPARE_NO_BINARY' when there is no binary for this platform, or spawn's error code. */
  code?: string;
  /** The platform ("<process.platform>-<process.arch>") that has no binary. */
  platform?: string;
  exitCode?: number | null;
  signal?: string | null;
  stderr?: string;
  stdout?: string;
  args?: string[];
}

/**
 * Compares `expected` with `actual`: file paths, or Buffers (written to a temporary file first).
 * Resolves whether or not they match; rejects with a SimreelCompareError carrying the
 * comparator's stderr when it could not compare them.
 */
export function compare(
  expected: string | Uint8Array,
  actual: string | Uint8Array,
  options?: CompareOptions,
): Promise<CompareResult>;

/** The binary compare() runs: $SIMREEL_COMPARE_BIN, or the one this package carries for this platform. */
export function binaryPath(): string;

/** The platforms whose binaries this package carries, e.g. ["darwin-arm64", "linux-x64"]. */
export function platforms(): string[];
