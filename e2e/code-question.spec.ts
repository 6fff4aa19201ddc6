/**
 * @file A natural-language question about a repository (semver 7, as the npm package ships it):
 * "How does a range check whether a version satisfies it?" selects the function that answers it,
 * functions/satisfies.js. Scored on all its words, the question's "how does a … whether … it"
 * chose a heavily commented file and the README instead (its first window was not selected).
 * `Range.test`, which satisfies() calls, is selected too with the default settings: BM25 reads each
 * window with its class and method names (core/code/scopes.ts) and alpha is 1; with hybrid scoring
 * as well.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { zipSync } from 'fflate';
import { dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';

const HERE = dirname(fileURLToPath(import.meta.url));
// semver 7 as npm installs it (a dependency of typescript-eslint here).
const SEMVER = resolve(
  HERE,
  '../node_modules/@typescript-eslint/typescript-estree/node_modules/semver',
);

function semverZip(): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else entries[`semver/${relative(SEMVER, path)}`] = readFileSync(path);
    }
  };
  walk(SEMVER);
  return zipSync(entries);
}

test('a question about semver selects functions/satisfies.js and Range.test with the default settings', async ({
  browser,
}) => {
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  try {
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    await dropFiles(page, [{ name: 'semver.zip', bytes: semverZip() }]);
    await expect(page.getByTestId('library-item')).toContainText(/fragments · zip/);
    const code = page.getByTestId('code-view');
    await code
      .getByLabel('Question about the repository')
      .fill('How does a range check whether a version satisfies it?');
    await code.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(code.getByTestId('code-summary')).toContainText('for “How does a range');
    const items = code.getByTestId('window-list').locator('li');
    const list = () =>
      items.evaluateAll((lis) =>
        lis.map(
          (li) => `${li.getAttribute('data-label')}${li.dataset.selected === 'true' ? ' *' : ''}`,
        ),
      );
    // A listed window holding `test (version) {`, line 196 of classes/range.js: Range.test.
    const rangeTest = (labels: string[]) =>
      labels.findIndex((l) => {
        const m = /^classes\/range\.js:(\d+)-(\d+)/.exec(l);
        return !!m && Number(m[1]) <= 196 && Number(m[2]) >= 196;
      });
    const selectedRangeTest = (labels: string[]) =>
      labels.some((l) => {
        const m = /^classes\/range\.js:(\d+)-(\d+) \*$/.exec(l);
        return !!m && Number(m[1]) <= 196 && Number(m[2]) >= 196;
      });
    // The default settings: no control was touched.
    const listed = await list();
    console.log(listed.slice(0, 20).join('\n'));
    const selected = listed.filter((l) => l.endsWith(' *'));
    expect(selected.some((l) => l.startsWith('functions/satisfies.js:'))).toBe(true);
    // Range.test, which satisfies() calls, shares one word with the question ("check" is "test"
    // in the code). The walk follows the code edges squared (core/code/references.ts), so the call
    // `range.test(version)` carries satisfies()'s walk; BM25 reads the body with its scope names
    // `Range test`, and alpha 1 weighs the walk as much as the words (rank 4 in Node; 33 and not
    // selected at alpha 0.5 without scope names, 52/62 and not listed before the squared walk).
    console.log(`Range.test window rank (defaults): ${rangeTest(listed) + 1}`);
    expect(selectedRangeTest(listed)).toBe(true);
    await expect(code.getByTestId('code-summary')).toContainText('bm25 with ppr, α 1.00');

    // Hybrid scoring (the distilled vectors the repository was embedded with) selects it.
    await code.getByLabel('Independent score').selectOption('hybrid');
    await code.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(code.getByTestId('code-summary')).toContainText('hybrid with ppr');
    const hybrid = await list();
    console.log(`Range.test window rank (hybrid): ${rangeTest(hybrid) + 1}`);
    expect(hybrid.some((l) => l.startsWith('functions/satisfies.js:') && l.endsWith(' *'))).toBe(
      true,
    );
    expect(selectedRangeTest(hybrid)).toBe(true);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.context().close();
  }
});
