/**
 * @file A natural-language question about a repository (semver 7, as the npm package ships it):
 * "How does a range check whether a version satisfies it?" selects the function that answers it,
 * functions/satisfies.js. Scored on all its words, the question's "how does a … whether … it"
 * chose a heavily commented file and the README instead (its first window was not selected).
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

test('a question about semver selects functions/satisfies.js', async ({ browser }) => {
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
    const listed = await items.evaluateAll((lis) =>
      lis.map(
        (li) => `${li.getAttribute('data-label')}${li.dataset.selected === 'true' ? ' *' : ''}`,
      ),
    );
    console.log(listed.slice(0, 20).join('\n'));
    const selected = listed.filter((l) => l.endsWith(' *'));
    expect(selected.some((l) => l.startsWith('functions/satisfies.js:'))).toBe(true);
    // Range.test (`test (version) {`, line 196 of classes/range.js), which satisfies() calls, is
    // not selected yet. The call `range.test(version)` now resolves to it (the class satisfies()
    // constructs: src/models/code-constructed.test.ts), so the multi-hop walk from satisfies.js
    // reaches it (its body's window gets the 50th environment score of 383 instead of the 74th),
    // but on words it shares only "version" with the question (BM25 0.20 and 0.40 of the best),
    // and the README, a file without syntax whose 67 windows Eq. 8 relates to each other at full
    // strength, keeps the walk's mass (each README window's environment score is near the top).
    // Where it ranks is logged for the record.
    const rangeTest = listed.findIndex((l) => {
      const m = /^classes\/range\.js:(\d+)-(\d+)/.exec(l);
      return !!m && Number(m[1]) <= 196 && Number(m[2]) >= 196;
    });
    console.log(
      `Range.test window rank: ${rangeTest < 0 ? 'not in the listed 40' : rangeTest + 1}`,
    );
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.context().close();
  }
});
