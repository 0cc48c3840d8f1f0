import { defineConfig } from '@playwright/test';

// The system's Chromium (CHROMIUM, default /usr/bin/chromium), headless: no browser download
// (install with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1). Playwright starts it without its sandbox
// (chromiumSandbox defaults to false), so this runs as root and in containers too.
export default defineConfig({
  testDir: './tests',
  reporter: [['list']],
  forbidOnly: !!process.env.CI,
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 320, height: 200 },
    deviceScaleFactor: 1,
    launchOptions: {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--disable-dev-shm-usage', '--hide-scrollbars'],
    },
  },
});
