import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/**
 * The floors of the house (docs/architecture.md): src/core is pure; src/ingest, src/models and
 * src/store stand on it; src/indexing (the indexing pipelines) on those; src/llm and src/workers
 * above; src/ui on top. An import may only
 * go down a floor or stay on its own; tests included, so a test that needs an upper floor lives
 * there. Import circles are found by scripts/import-cycles.mjs, also part of `npm run lint`.
 */
function onlyDownFrom(floor, above) {
  return {
    files: [`src/${floor}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${above.join('|')})(/|$)`,
              message: `src/${floor} may not import from src/{${above.join(',')}}: imports go down the floors (docs/architecture.md).`,
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist', 'dist-*', 'node_modules', 'public/models', 'bench/results', 'test-results'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
    },
  },
  {
    // The core is pure: it may not reach for the DOM, workers or storage.
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/**/*.test.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-globals': [
        'error',
        'window',
        'document',
        'self',
        'indexedDB',
        'navigator',
        'fetch',
        'postMessage',
      ],
    },
  },
  {
    files: [
      '**/*.test.ts',
      'bench/**/*.ts',
      'scripts/**/*.{ts,mjs}',
      'e2e/**/*.ts',
      '*.config.{ts,js}',
    ],
    languageOptions: { globals: { ...globals.node } },
  },
  onlyDownFrom('core', ['ingest', 'models', 'store', 'indexing', 'llm', 'workers', 'ui']),
  onlyDownFrom('ingest', ['indexing', 'llm', 'workers', 'ui']),
  onlyDownFrom('models', ['indexing', 'llm', 'workers', 'ui']),
  onlyDownFrom('store', ['indexing', 'llm', 'workers', 'ui']),
  onlyDownFrom('indexing', ['llm', 'workers', 'ui']),
  onlyDownFrom('llm', ['workers', 'ui']),
  onlyDownFrom('workers', ['ui']),
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
);
