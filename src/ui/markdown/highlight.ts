/**
 * @file Code blocks in answers, highlighted by highlight.js (maintained, no DOM of its own to
 * mount, a "common languages" build). Loaded on first use as its own chunk: most answers have
 * no code, and the page should not pay for the grammars up front.
 */
import hljs from 'highlight.js/lib/common';

/** Highlights every not yet highlighted `pre > code` under `root`. */
export function highlightCodeBlocks(root: HTMLElement): void {
  for (const el of root.querySelectorAll<HTMLElement>('pre > code:not(.hljs)')) {
    // highlightElement reads textContent and writes escaped markup: the code stays data.
    hljs.highlightElement(el);
  }
}
