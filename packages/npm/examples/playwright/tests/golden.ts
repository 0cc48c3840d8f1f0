// expect(page or screenshot).toMatchGolden(name): the screenshot compared with goldens/<name>.png by
// simreel-compare. A missing golden is written and the test fails saying so; UPDATE_GOLDENS=1
// writes missing goldens and replaces differing ones instead of failing.
import fs from 'node:fs';
import path from 'node:path';
import { expect as baseExpect, test, type Page } from '@playwright/test';
import { compare, type CompareOptions } from 'simreel-compare';

export { test };

export const GOLDENS = path.join(__dirname, '..', 'goldens');
const update = process.env.UPDATE_GOLDENS === '1';

function isPage(x: unknown): x is Page {
  return typeof x === 'object' && x !== null && typeof (x as Page).screenshot === 'function';
}

export const expect = baseExpect.extend({
  async toMatchGolden(received: Page | Buffer, name: string, options: Omit<CompareOptions, 'out'> = {}) {
    const matcherName = 'toMatchGolden';
    const info = test.info();
    const file = name.endsWith('.png') ? name : `${name}.png`;
    const golden = path.join(GOLDENS, file);
    const shown = path.relative(process.cwd(), golden);
    const screenshot = isPage(received)
      ? await received.screenshot({ animations: 'disabled', caret: 'hide' })
      : received;

    // the screenshot, kept beside the test's other output
    const actual = info.outputPath(file);
    fs.mkdirSync(path.dirname(actual), { recursive: true });
    fs.writeFileSync(actual, screenshot);

    if (!fs.existsSync(golden)) {
      fs.mkdirSync(path.dirname(golden), { recursive: true });
      fs.copyFileSync(actual, golden);
      if (update) return { pass: !this.isNot, name: matcherName, message: () => `wrote the new golden ${shown}` };
      return {
        pass: this.isNot, // fails with and without .not
        name: matcherName,
        message: () =>
          `the golden ${shown} did not exist: it was written from this screenshot. ` +
          `Look at it, commit it and run the test again (UPDATE_GOLDENS=1 accepts new goldens without failing).`,
      };
    }

    const result = await compare(golden, actual, { ...options, out: info.outputPath(`${path.parse(file).name}-compare`) });
    info.attachments.push({ name: `${file}: simreel-compare report`, path: result.report, contentType: 'text/html' });
    if (!result.match && update) {
      fs.copyFileSync(actual, golden);
      return { pass: !this.isNot, name: matcherName, message: () => `replaced the golden ${shown}: ${result.reason}` };
    }
    return {
      pass: result.match,
      name: matcherName,
      message: () =>
        result.match
          ? `expected the screenshot to differ from ${shown}, but ${result.reason}\nreport: ${result.report}`
          : `the screenshot differs from the golden ${shown}\n` +
            `  ${result.reason}\n` +
            `  report: ${result.report}\n` +
            `  accept it: UPDATE_GOLDENS=1 npx playwright test (or ${result.summary.frames[0]?.bless ?? 'copy the screenshot over the golden'})`,
    };
  },
});
