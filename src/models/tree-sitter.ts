/**
 * @file web-tree-sitter 0.27.1 set up once per thread, and grammars loaded on first use.
 *
 * Where the wasm files come from is injected (`GrammarSource`): in the browser from our own build
 * (tree-sitter-browser.ts, Vite `?url` imports, never a CDN); in Node (tests, benchmarks) from
 * node_modules by path (tree-sitter-node.ts), which `Language.load` reads with `fs` there.
 * Grammars are @repomix/tree-sitter-wasms 0.1.17: ../shared/PLATFORM.md lists the builds that
 * load in this runtime (the older `tree-sitter-wasms` package does not).
 *
 * Nothing else in the app touches web-tree-sitter: code-syntax.ts turns trees into plain data.
 */
import { Language, Parser } from 'web-tree-sitter';
import type { CodeLanguage } from '../core/code/syntax';

/** A wasm file: a URL (browser), a file path (Node), or its bytes. */
export type WasmSource = string | URL | Uint8Array;

export interface GrammarSource {
  /**
   * URL of web-tree-sitter's runtime (`web-tree-sitter.wasm`). Omit it in Node, where the
   * library finds the file beside its own script.
   */
  runtime?: string;
  /** The grammar of a language. */
  grammar(language: CodeLanguage): WasmSource;
}

/** Human names of the languages, for messages. */
export const LANGUAGE_NAMES: Readonly<Record<CodeLanguage, string>> = Object.freeze({
  python: 'Python',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
  tsx: 'TSX',
  java: 'Java',
  go: 'Go',
  rust: 'Rust',
  c: 'C',
  cpp: 'C++',
});

let runtimeReady: Promise<void> | null = null;

/**
 * Initialise web-tree-sitter's runtime for this thread (idempotent). `Parser.init` is global to
 * the module, so the first caller's `runtime` URL wins; a failed start may be retried.
 */
export function initTreeSitter(runtime?: string): Promise<void> {
  runtimeReady ??= Parser.init(
    runtime
      ? { locateFile: (file: string) => (file.endsWith('.wasm') ? runtime : file) }
      : undefined,
  ).catch((error: unknown) => {
    runtimeReady = null;
    throw error;
  });
  return runtimeReady;
}

/** Grammars of one `GrammarSource`, each loaded at most once (a failed load may be retried). */
export class GrammarSet {
  private readonly loading = new Map<CodeLanguage, Promise<Language>>();

  constructor(private readonly source: GrammarSource) {}

  /** The loaded grammar; rejects with an Error whose message says what failed and what follows. */
  load(language: CodeLanguage): Promise<Language> {
    let pending = this.loading.get(language);
    if (!pending) {
      pending = (async () => {
        await initTreeSitter(this.source.runtime);
        try {
          return await Language.load(this.source.grammar(language));
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          throw new Error(
            `The ${LANGUAGE_NAMES[language]} grammar could not be loaded (${why}). ` +
              `${LANGUAGE_NAMES[language]} files are still indexed as line windows, related only ` +
              'by the directory tree; reload the page to try again.',
          );
        }
      })();
      pending.catch(() => this.loading.delete(language));
      this.loading.set(language, pending);
    }
    return pending;
  }
}
