import { useEffect, useMemo, useRef } from 'react';
import { renderAnswerHtml, type CitationSource } from './render';
import './markdown.css';

/**
 * An answer (or chat reply) rendered as Markdown, with citations as links to their fragments
 * and invalid ones marked (render.ts). Code blocks are highlighted once highlight.js has loaded.
 */
export function MarkdownAnswer<S extends CitationSource>({
  text,
  sources,
  onCite,
  className,
  testId,
}: {
  text: string;
  /** The prompt's sources; null: no citations (a chat reply). */
  sources: readonly S[] | null;
  /** A citation was clicked; `claim`: the words of the answer's sentence before it. */
  onCite?: (source: S, claim: string) => void;
  className?: string;
  testId?: string;
}) {
  const html = useMemo(() => renderAnswerHtml(text, sources), [text, sources]);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = root.current;
    if (!el || !el.querySelector('pre > code')) return;
    let live = true;
    void import('./highlight').then(({ highlightCodeBlocks }) => {
      if (live && root.current) highlightCodeBlocks(root.current);
    });
    return () => {
      live = false;
    };
  }, [html]);
  return (
    <div
      ref={root}
      className={`markdown${className ? ` ${className}` : ''}`}
      data-testid={testId}
      // Sanitised HTML from render.ts: Markdown with raw HTML off, then DOMPurify.
      dangerouslySetInnerHTML={{ __html: html }}
      onClick={(e) => {
        const a = (e.target as HTMLElement).closest<HTMLAnchorElement>('a.cite');
        if (!a || !onCite || !sources) return;
        e.preventDefault();
        const source = sources[Number(a.dataset.label) - 1];
        if (source) onCite(source, claimBefore(a));
      }}
    />
  );
}

/**
 * The claim a citation supports: the text of its block (paragraph, list item) from the last
 * sentence end before the citation up to it; the whole sentence when the citation opens it.
 */
export function claimBefore(link: Element): string {
  const block = link.closest('p, li, td, th, blockquote, h1, h2, h3, h4') ?? link.parentElement;
  if (!block) return '';
  const range = document.createRange();
  range.setStart(block, 0);
  range.setEndBefore(link);
  const before = range.toString().replace(/\[[\d,;\s–—-]*\??\]/g, ' ');
  const sentences = before.split(/(?<=[.!?])\s+/).filter((x) => x.trim());
  const last = sentences[sentences.length - 1]?.trim() ?? '';
  return last.length >= 12 ? last : (block.textContent ?? '').trim();
}
