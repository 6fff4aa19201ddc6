import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { unzipSync, zipSync } from 'fflate';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { sharedDatasetPath } from '../test/glove';
import { dropFiles } from './support/drop';
import { isLocal } from './support/local-page';

// The library as Parquet for other engines, and Parquet dropped on Import library… refused.

async function open(page: Page, problems: string[]) {
  await page.context().route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
}

async function importFile(page: Page, name: string, buffer: Buffer | Uint8Array) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Import library…' }).click();
  await (
    await chooser
  ).setFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(buffer) });
}

const arrayBuffer = (b: Uint8Array) =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

test('Export as Parquet: a zip of Parquet tables with every fragment; Cancel saves nothing', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const problems: string[] = [];
  await open(page, problems);
  await dropFiles(page, [{ name: 'alice.txt', path: sharedDatasetPath('gutenberg/pg11.txt') }]);
  await expect(page.getByTestId('library-item')).toHaveCount(1, { timeout: 60_000 });

  // Cancel at once: no download, a notice, the button back.
  const downloads: string[] = [];
  page.on('download', (d) => downloads.push(d.suggestedFilename()));
  // Click Export and then Cancel in the page itself, as soon as Cancel shows: a book this small
  // exports in well under a second, so a click from here could come after the end.
  const shown = await page.evaluate(async () => {
    const button = (name: string) =>
      [...document.querySelectorAll('button')].find((b) => b.textContent === name);
    button('Export as Parquet')!.click();
    for (let k = 0; k < 100; k++) {
      await new Promise((r) => setTimeout(r, 0));
      const cancel = button('Cancel export');
      if (cancel) {
        const bar = document.querySelector('progress[aria-label="Parquet export"]') !== null;
        cancel.click();
        return bar;
      }
    }
    return false;
  });
  expect(shown).toBe(true);
  await expect(
    page.getByTestId('notice').filter({ hasText: 'Export as Parquet cancelled' }),
  ).toContainText('nothing was saved');
  await expect(page.getByRole('button', { name: 'Export as Parquet' })).toBeVisible();
  expect(downloads).toEqual([]);

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export as Parquet' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^fragrel-library-.*\.fragrel-parquet\.zip$/);
  const zip = readFileSync(await download.path());
  await expect(
    page.getByTestId('notice').filter({ hasText: 'Exported 1 document as Parquet' }),
  ).toBeVisible();

  const files = unzipSync(zip);
  expect(Object.keys(files).sort()).toEqual([
    'documents.parquet',
    'edges.parquet',
    'fragments.parquet',
    'manifest.json',
    'relations.parquet',
    'vectors.parquet',
  ]);
  const fragments = await parquetReadObjects({ file: arrayBuffer(files['fragments.parquet']) });
  expect(fragments.length).toBeGreaterThan(40);
  const alice = readFileSync(sharedDatasetPath('gutenberg/pg11.txt'), 'utf8');
  expect(
    fragments.some((f) => String(f.text).includes('Alice was beginning to get very tired')),
  ).toBe(true);
  expect(alice.length).toBeGreaterThan(0);
  const vectors = parquetMetadata(arrayBuffer(files['vectors.parquet']));
  expect(Number(vectors.num_rows)).toBe(fragments.length);
  const edges = await parquetReadObjects({ file: arrayBuffer(files['edges.parquet']) });
  expect(edges.every((e) => e.kind === 'semantic' && e.i !== e.j)).toBe(true);

  // Parquet dropped on Import library…: refused with what it is, the library untouched.
  const foreign = new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'city', data: ['Lyon', 'Oslo'], type: 'STRING' },
        { name: 'population', data: [522_000, 709_000], type: 'INT32' },
      ],
    }),
  );
  for (const [name, bytes, says] of [
    ['cities.parquet', foreign, 'Parquet table from another tool'],
    ['cut.parquet', foreign.subarray(0, foreign.length - 30), 'damaged or cut-short Parquet file'],
    ['tables.zip', zipSync({ 'a.parquet': foreign }), 'Parquet tables from another tool'],
    ['ours.fragrel-parquet.zip', zip, 'Parquet export'],
  ] as const) {
    await importFile(page, name, bytes);
    await expect(page.getByTestId('notice').filter({ hasText: name })).toContainText(says);
    await expect(page.getByTestId('notice').filter({ hasText: name })).toContainText(
      'nothing changed',
    );
  }
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  await page.reload();
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  expect(problems).toEqual([]);
});
