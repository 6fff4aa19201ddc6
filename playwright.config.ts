import { defineConfig } from '@playwright/test';

/**
 * Port and build folder of the `vite preview` server the tests drive. Both can be moved
 * (E2E_PORT, E2E_DIST) so that several engineers' runs on one machine do not share a build.
 */
export const PREVIEW_PORT = Number(process.env.E2E_PORT ?? 4173);
const DIST = process.env.E2E_DIST ?? 'dist';

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
    command: `node node_modules/vite/bin/vite.js preview --outDir ${DIST} --host 127.0.0.1 --port ${PREVIEW_PORT} --strictPort`,
    url: `http://127.0.0.1:${PREVIEW_PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
