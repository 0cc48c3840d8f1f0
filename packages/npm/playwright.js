'use strict';
// simreel-compare for Playwright Test: the toMatchGolden matcher and the system's browser.
//
//   import { expect as base, test } from '@playwright/test';
//   import { toMatchGolden } from 'simreel-compare/playwright';
//   const expect = base.extend({ toMatchGolden });
//   await expect(page).toMatchGolden('settings');
//
// The screenshot is compared with goldens/<name>.png in the test file's folder. A missing golden
// is written and the test fails saying so (as Playwright's own snapshots do); a differing one fails
// with the comparator's verdict and report, and its screenshot is left beside the golden as
// goldens/<name>.new.png, a pending image that `npx simreel-compare review --pending <folder>`
// accepts or rejects (nothing is left pending on CI). UPDATE_GOLDENS=1, or Playwright's
// --update-snapshots, writes new and changed goldens instead of failing. @playwright/test is the
// project's own: it is looked up from the test, never installed by this package.

const fs = require('fs');
const path = require('path');
const { compare } = require('./index.js');

const MATCHER = 'toMatchGolden';

/** Whether the tests run on CI, as insta and Playwright read it: CI set to anything but "", 0, false. */
function onCi() {
  const v = (process.env.CI || '').trim().toLowerCase();
  return v !== '' && v !== '0' && v !== 'false';
}

/** Whether this run writes new and changed goldens: UPDATE_GOLDENS=1, or --update-snapshots. */
function updating(info) {
  if (process.env.UPDATE_GOLDENS === '1') return true;
  const u = info && info.config && info.config.updateSnapshots;
  return u === 'all' || u === 'changed';
}

function testInfo() {
  let pw;
  try {
    pw = require(require.resolve('@playwright/test', { paths: [process.cwd(), __dirname] }));
  } catch {
    throw new Error(`${MATCHER} runs inside Playwright Test: install @playwright/test in the project`);
  }
  return pw.test.info();
}

function fileName(name) {
  if (typeof name !== 'string' || name === '' || /[\\/]/.test(name) || name === '.' || name === '..') {
    throw new TypeError(`${MATCHER}: ${JSON.stringify(name)} is not a golden's name: a file name without folders`);
  }
  const file = name.toLowerCase().endsWith('.png') ? name : `${name}.png`;
  if (file.toLowerCase().endsWith('.new.png')) {
    throw new TypeError(`${MATCHER}: ${JSON.stringify(name)} ends in .new, which marks pending images`);
  }
  return file;
}

async function screenshotOf(received) {
  if (received instanceof Uint8Array) return Buffer.from(received.buffer, received.byteOffset, received.byteLength);
  if (received && typeof received.screenshot === 'function') {
    return received.screenshot({ animations: 'disabled', caret: 'hide' });
  }
  throw new TypeError(`${MATCHER}: expected a Page, a Locator or a screenshot Buffer, got ${typeof received}`);
}

function removeStale(file) {
  try {
    fs.unlinkSync(file);
  } catch {
    // there was none
  }
}

/**
 * The matcher, for `expect.extend({ toMatchGolden })`: `await expect(pageOrLocatorOrBuffer)
 * .toMatchGolden(name, options?)`, options as compare()'s (the tolerance; `out` is the test's).
 */
async function toMatchGolden(received, name, options = {}) {
  const info = testInfo();
  const file = fileName(name);
  const dir = path.join(path.dirname(info.file), 'goldens');
  const golden = path.join(dir, file);
  const pending = path.join(dir, file.replace(/\.png$/i, '.new.png'));
  const shown = (p) => path.relative(process.cwd(), p) || p;
  const said = (pass, message) => ({ pass: this.isNot ? !pass : pass, name: MATCHER, message: () => message });
  const shot = await screenshotOf(received);

  // the screenshot beside the test's other output, where Playwright's reporters find it
  const actual = info.outputPath(file);
  fs.mkdirSync(path.dirname(actual), { recursive: true });
  fs.writeFileSync(actual, shot);
  const update = updating(info);

  if (!fs.existsSync(golden)) {
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(actual, golden);
    removeStale(pending);
    if (update) return said(true, `wrote the new golden ${shown(golden)}`);
    return said(
      false,
      `the golden ${shown(golden)} did not exist: it was written from this screenshot. Look at it, commit it ` +
        `and run the test again (UPDATE_GOLDENS=1 or --update-snapshots writes new goldens without failing).`,
    );
  }

  // the report goes beside the test's output, whatever `out` says
  const tolerance = { ...options };
  delete tolerance.out;
  const result = await compare(golden, actual, { ...tolerance, out: info.outputPath(`${path.parse(file).name}-compare`) });
  info.attachments.push({ name: `${file}: simreel-compare report`, path: result.report, contentType: 'text/html' });
  if (result.match) {
    removeStale(pending);
    return {
      pass: !this.isNot,
      name: MATCHER,
      message: () => `expected the screenshot to differ from ${shown(golden)}, but ${result.reason}\nreport: ${result.report}`,
    };
  }
  if (update) {
    fs.copyFileSync(actual, golden);
    removeStale(pending);
    return said(true, `replaced the golden ${shown(golden)}: ${result.reason}`);
  }
  let next;
  if (onCi()) {
    next = `  on CI nothing is left pending: the screenshot is ${actual}`;
  } else {
    fs.copyFileSync(actual, pending);
    next = `  pending: ${shown(pending)}\n  review: npx simreel-compare review --pending ${shown(dir)} (or UPDATE_GOLDENS=1 npx playwright test)`;
  }
  return said(false, `the screenshot differs from the golden ${shown(golden)}\n  ${result.reason}\n  report: ${result.report}\n${next}`);
}

const BROWSERS = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/**
 * Launch options for the system's Chromium, for `use: { launchOptions: systemChromium() }`:
 * $CHROMIUM where set, else the first of chromium, chromium-browser, google-chrome on the PATH;
 * {} where there is none (Playwright's own browser then: `npx playwright install chromium`).
 * Install @playwright/test with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 to download no browser.
 */
function systemChromium(extra = {}) {
  const found = process.env.CHROMIUM || whichOf(BROWSERS);
  if (!found) return { ...extra };
  return { ...extra, executablePath: found, args: ['--disable-dev-shm-usage', '--hide-scrollbars', ...(extra.args || [])] };
}

function whichOf(names) {
  const dirs = (process.env.PATH || '').split(path.delimiter).filter(Boolean);
  for (const name of names) {
    for (const d of dirs) {
      const p = path.join(d, name);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        if (fs.statSync(p).isFile()) return p;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

module.exports = { toMatchGolden, systemChromium, updating, onCi };
