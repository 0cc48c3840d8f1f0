/// <reference types="node" />
import type { CompareOptions } from './index';

/** The matcher's options: the tolerance (the report goes beside the test's output). */
export type GoldenOptions = Omit<CompareOptions, 'out'>;

/**
 * For `expect.extend({ toMatchGolden })`: compares a Page's or Locator's screenshot (or a
 * screenshot Buffer) with `goldens/<name>.png` in the test file's folder. A missing golden is
 * written and fails; a differing one fails with the report and is left pending as
 * `goldens/<name>.new.png` (not on CI) for `npx simreel-compare review --pending <folder>`.
 * UPDATE_GOLDENS=1 or `--update-snapshots` writes new and changed goldens instead.
 */
export declare function toMatchGolden(
  this: { isNot: boolean },
  received: { screenshot(options?: object): Promise<Buffer> } | Uint8Array,
  name: string,
  options?: GoldenOptions,
): Promise<{ pass: boolean; name: string; message: () => string }>;

/**
 * Launch options for the system's Chromium ($CHROMIUM, else chromium, chromium-browser or
 * google-chrome on the PATH), for `use: { launchOptions: systemChromium() }`; `{}` (Playwright's
 * own browser) where there is none. `extra` is merged in (its `args` after ours).
 */
export declare function systemChromium(extra?: { args?: string[]; [key: string]: unknown }): {
  executablePath?: string;
  args?: string[];
  [key: string]: unknown;
};

/** Whether this run writes new and changed goldens: UPDATE_GOLDENS=1 or --update-snapshots. */
export declare function updating(info?: { config?: { updateSnapshots?: string } }): boolean;

/** Whether the tests run on CI (CI set to anything but "", 0 or false). */
export declare function onCi(): boolean;

declare global {
  namespace PlaywrightTest {
    interface Matchers<R> {
      /** The screenshot matches `goldens/<name>.png` (see simreel-compare/playwright). */
      toMatchGolden(name: string, options?: GoldenOptions): Promise<R>;
    }
  }
}
