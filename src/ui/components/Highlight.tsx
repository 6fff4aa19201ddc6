import { Fragment as ReactFragment, type ReactNode } from 'react';
import { tokenize } from '../../core/tokenize';

/** Wrap the words of `text` whose token is one of `terms` in <mark>. */
export function Highlight({ text, terms }: { text: string; terms: Set<string> }) {
  if (terms.size === 0) return <>{text}</>;
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const hit = tokenize(m[0]).some((t) => terms.has(t));
    if (!hit) continue;
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(<mark key={at}>{m[0]}</mark>);
    last = at + m[0].length;
  }
  out.push(text.slice(last));
  return (
    <>
      {out.map((part, i) => (
        <ReactFragment key={i}>{part}</ReactFragment>
      ))}
    </>
  );
}
