import { defineConfig } from '@playwright/test';

/** Port of the `vite preview` server the end-to-end tests drive. */
export const PREVIEW_PORT = 4173;

// Debian's Chromium, never a downloaded browser (`npx playwright install` cannot work here).
// The networking flags stop Chromium's own background traffic, which this closed network refuses.
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export default defineConfig({
  testDir: 'e2e',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PREVIEW_PORT}/`,
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: chromiumArgs,
    },
    trace: 'off',
  },
  webServer: {
    command: `node node_modules/vite/bin/vite.js preview --host 127.0.0.1 --port ${PREVIEW_PORT} --strictPort`,
    url: `http://127.0.0.1:${PREVIEW_PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
