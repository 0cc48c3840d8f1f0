import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from './golden';

const page_url = pathToFileURL(path.join(__dirname, '..', 'page', 'button.html')).href;

test('the save button looks as approved', async ({ page }) => {
  await page.goto(page_url);
  await expect(page.getByRole('button', { name: 'Save' })).toBeVisible();
  await expect(page).toMatchGolden('button');
});

test('the button alone, from a screenshot Buffer', async ({ page }) => {
  await page.goto(page_url);
  const shot = await page.getByRole('button', { name: 'Save' }).screenshot();
  await expect(shot).toMatchGolden('button-alone', { maxPixels: 0 });
});
