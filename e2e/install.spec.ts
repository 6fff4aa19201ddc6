/**
 * @file The app is installable (docs/deploy.md): the web app manifest is served beside the page,
 * valid, with every URL relative (so it works under any sub-path), and its icons are real PNGs of
 * the sizes it claims; Chromium reports no installability error. Served by a plain static file
 * server under a sub-path, as a deployment would be. The installed app opens `start_url`, the
 * page e2e/static-host.spec.ts and e2e/offline.spec.ts open offline with the library.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium, expect, test } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startStaticServer, type StaticServer } from './support/static-server';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(HERE, '..', process.env.E2E_DIST ?? 'dist');

let server: StaticServer;

test.beforeAll(async () => {
  server = await startStaticServer(DIST, '/deploy/here/');
});

test.afterAll(async () => {
  await server?.close();
});

interface ManifestIcon {
  src: string;
  sizes: string;
  type: string;
  purpose?: string;
}

/** Width and height from a PNG's IHDR chunk, or null when the bytes are not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(signature)) return null;
  if (bytes.subarray(12, 16).toString('ascii') !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('the manifest is linked, served, valid and relative; its icons are what it says', async ({
  page,
  request,
}) => {
  await page.goto(server.url);
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('./manifest.webmanifest');
  const manifestUrl = new URL(href!, server.url).href;
  const response = await request.get(manifestUrl);
  expect(response.status()).toBe(200);
  const manifest = (await response.json()) as Record<string, unknown> & { icons: ManifestIcon[] };
  expect(manifest).toMatchObject({
    name: 'FragRel Lens',
    short_name: 'FragRel Lens',
    start_url: './',
    scope: './',
    id: './',
    display: 'standalone',
  });
  // Relative URLs resolve to the deployment's own folder, whatever its path.
  expect(new URL(manifest.start_url as string, manifestUrl).href).toBe(server.url);

  const pngs = manifest.icons.filter((i) => i.type === 'image/png');
  expect(pngs.map((i) => i.sizes).sort()).toEqual(['192x192', '512x512', '512x512']);
  expect(pngs.some((i) => i.purpose === 'maskable')).toBe(true);
  for (const icon of manifest.icons) {
    expect(icon.src).not.toMatch(/^\/|^[a-z]+:/); // relative
    const got = await request.get(new URL(icon.src, manifestUrl).href);
    expect(got.status(), icon.src).toBe(200);
    const bytes = await got.body();
    if (icon.type === 'image/png') {
      const [w, h] = icon.sizes.split('x').map(Number);
      expect(pngSize(bytes), icon.src).toEqual({ width: w, height: h });
    } else {
      expect(bytes.toString('utf8')).toMatch(/^<svg [^>]*viewBox="0 0 512 512"/);
    }
  }

  // Chromium's own reading of the manifest: no parse errors, the icons and display it found.
  const cdp = await page.context().newCDPSession(page);
  const parsed = (await cdp.send('Page.getAppManifest')) as {
    url: string;
    errors: Array<{ message: string }>;
  };
  expect(parsed.url).toBe(manifestUrl);
  expect(parsed.errors).toEqual([]);
});

test('Chromium finds nothing that stops installing it', async () => {
  // An ordinary profile: the test's usual browser contexts are off the record, and Chromium never
  // installs from those (its one error there is "in-incognito").
  const profile = mkdtempSync(path.join(tmpdir(), 'fragrel-install-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: chromiumArgs,
  });
  try {
    const page = await context.newPage();
    await page.goto(server.url);
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    const cdp = await context.newCDPSession(page);
    const installability = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: Array<{ errorId: string }>;
    };
    expect(installability.installabilityErrors).toEqual([]);

    // The check can fail: the same build with the manifest's link taken out of the page.
    const bare = await startStaticServer(DIST, '/deploy/here/');
    bare.patch = (file, bytes) =>
      file === 'index.html'
        ? Buffer.from(bytes.toString('utf8').replace(/<link rel="manifest"[^>]*>/, ''))
        : bytes;
    try {
      await page.goto(bare.url);
      await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
      const errors = (await cdp.send('Page.getInstallabilityErrors')) as {
        installabilityErrors: Array<{ errorId: string }>;
      };
      expect(errors.installabilityErrors.map((e) => e.errorId)).toContain('no-manifest');
    } finally {
      await bare.close();
    }
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
