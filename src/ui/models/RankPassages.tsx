/**
 * @file "Rank passages" on the model check page: after a model is loaded, paste a query and the
 * passages to rank (one per line; a blank line starts another set) and see the cosine of each
 * passage to its query, best first. The query is embedded as a query and the passages as
 * passages, with the model's own prefixes, exactly as retrieval does.
 *
 * The numbers are also in `<pre data-testid="ranking-result">` as JSON (scores in input order),
 * which the Chromium tests and the embedding benchmark read.
 */
import { useState, type FormEvent } from 'react';
import type { WorkerClient } from '../../workers/client';
import type { EmbedApi } from '../../workers/embed.worker';
import { parseRankingSets, rankSets, type RankedSet } from './check';
import { TableHead } from '../components/TableHead';

export function RankPassages({
  worker,
  disabled,
}: {
  worker: () => WorkerClient<EmbedApi>;
  disabled: boolean;
}) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<{ sets: RankedSet[]; ms: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);

  async function rank(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setResult(null);
    const sets = parseRankingSets(text);
    if (!sets.length) {
      setError('Write a query on the first line and at least one passage under it.');
      return;
    }
    setRunning(true);
    try {
      const w = worker();
      const started = performance.now();
      const queries = await w.call('embed', { texts: sets.map((s) => s.query), kind: 'query' });
      const passages = await w.call('embed', {
        texts: sets.flatMap((s) => s.passages),
        kind: 'passage',
      });
      setResult({
        sets: rankSets(sets, queries.data, passages.data, queries.dim),
        ms: performance.now() - started,
      });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setRunning(false);
    }
  }

  return (
    <section aria-labelledby="rank-heading" data-testid="rank-passages">
      <h2 id="rank-heading">Rank passages</h2>
      <form onSubmit={rank}>
        <label htmlFor="rank-text">
          A query on the first line, the passages to rank under it, one per line. A blank line
          starts another set.
        </label>
        <textarea
          id="rank-text"
          rows={8}
          value={text}
          disabled={disabled || running}
          onChange={(e) => setText(e.target.value)}
        />
        <div className="actions">
          <button type="submit" disabled={disabled || running || !text.trim()}>
            Rank
          </button>
        </div>
      </form>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {result && (
        <>
          <p data-testid="ranking-summary">
            {result.sets.length} {result.sets.length === 1 ? 'set' : 'sets'} ranked in{' '}
            {Math.round(result.ms)} ms.
          </p>
          {result.sets.slice(0, 5).map((set, i) => (
            <table key={i} className="ranking">
              <caption>{set.query}</caption>
              <TableHead columns={['Rank', 'Cosine', 'Passage']} />
              <tbody>
                {set.order.map((p, rank) => (
                  <tr key={p}>
                    <td>{rank + 1}</td>
                    <td>{set.scores[p].toFixed(3)}</td>
                    <td>{set.passages[p]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
          <pre data-testid="ranking-result">
            {JSON.stringify({ ms: result.ms, sets: result.sets.map((s) => s.scores) })}
          </pre>
        </>
      )}
    </section>
  );
}
