/**
 * @file The evaluation page's loaded benchmark and its grid: the detected format and counts, and
 * the form that chooses the retrieval grid (embedder, scorers, relations, values, questions,
 * baseline) and runs it (EvaluatePage.tsx).
 */
import { STATIC_EMBEDDER_ID } from '../../core/embed/static';
import { configKey, configLabel } from '../../core/eval/grid';
import type { ParsedBenchmark } from '../../core/eval/datasets';
import { DEFAULT_HUB_HOST } from '../../models/settings';
import { countOf } from '../format/numbers';
import { HubHostField } from '../hub/HubHostField';
import { RECOMMENDED_EMBEDDER } from '../library-service';
import { RELATION_SETS, type GridChoice, type gridFromChoice } from './grid-choice';
import type { GridScorer } from '../../core/eval/grid';

/**
 * The embedders the grid's dense and hybrid scores and the semantic relation can use: the offline
 * GloVe vectors, or the transformer the library recommends (all-MiniLM-L6-v2, downloaded from the
 * hub host the library uses, loaded by the same models/embedder.ts as the main page).
 */
const GRID_EMBEDDERS = [
  { id: STATIC_EMBEDDER_ID, label: 'GloVe word vectors (offline)' },
  { id: RECOMMENDED_EMBEDDER, label: 'all-MiniLM-L6-v2 (transformer, ~23 MB download)' },
] as const;

const scorersOf = (embedder: string): { id: GridScorer; label: string }[] => [
  { id: 'bm25', label: 'BM25' },
  {
    id: 'dense',
    label:
      embedder === STATIC_EMBEDDER_ID
        ? 'dense (GloVe word vectors, offline)'
        : `dense (${embedder})`,
  },
  { id: 'hybrid', label: 'hybrid (BM25 + dense)' },
];

function toggle<T>(list: readonly T[], x: T, on: boolean): T[] {
  return on ? (list.includes(x) ? [...list] : [...list, x]) : list.filter((y) => y !== x);
}

export function GridForm({
  loaded,
  choice,
  setChoice,
  embedderId,
  setEmbedderId,
  hubHost,
  chooseHub,
  sample,
  setSample,
  baselineKey,
  setBaselineChoice,
  gridState,
  disabled,
  run,
}: {
  loaded: { files: { name: string; text: string }[]; benchmark: ParsedBenchmark };
  choice: GridChoice;
  setChoice: (choice: GridChoice) => void;
  embedderId: string;
  setEmbedderId: (id: string) => void;
  hubHost: string | null;
  chooseHub: (host: string) => void;
  sample: string;
  setSample: (sample: string) => void;
  baselineKey: string;
  setBaselineChoice: (key: string) => void;
  gridState: ReturnType<typeof gridFromChoice>;
  disabled: boolean;
  run: () => Promise<void>;
}) {
  const b = loaded.benchmark;
  const withGold = b.items.filter((i) => i.gold.length > 0).length;
  const withAnswer = b.items.filter((i) => i.answerText !== null).length;
  const configs = gridState.spec?.configs ?? [];
  const sampleN = Number(sample);
  const chosenQuestions = Math.min(
    b.items.length,
    sample.trim() && sampleN > 0 ? sampleN : b.items.length,
  );
  return (
    <section aria-labelledby="eval-file-h" data-testid="eval-detected">
      <h2 id="eval-file-h">{loaded.files[0].name}</h2>
      <p>
        Detected format: <strong data-testid="eval-format">{b.label}</strong>
      </p>
      <ul className="eval-counts">
        <li data-testid="eval-count-questions">{b.items.length} questions</li>
        <li>{countOf(b.documents, 'document')}</li>
        <li>{withGold} with a gold passage (gold recall)</li>
        <li>{withAnswer} with an answer text (answer-in-context)</li>
        {b.skipped > 0 && <li>{b.skipped} left out: nothing to score</li>}
      </ul>
      <ul className="eval-notes">
        {b.notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>

      <form
        className="eval-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <fieldset>
          <legend>Embedder (dense, hybrid, semantic kNN)</legend>
          {GRID_EMBEDDERS.map((e) => (
            <label key={e.id}>
              <input
                type="radio"
                name="grid-embedder"
                checked={embedderId === e.id}
                onChange={() => setEmbedderId(e.id)}
              />{' '}
              {e.label}
            </label>
          ))}
          {embedderId !== STATIC_EMBEDDER_ID && (
            <HubHostField
              host={hubHost ?? DEFAULT_HUB_HOST}
              onHost={chooseHub}
              label="hub host"
              testId="eval-hub-host"
            />
          )}
        </fieldset>
        <fieldset>
          <legend>Scorers (Eq. 4)</legend>
          {scorersOf(embedderId).map((s) => (
            <label key={s.id}>
              <input
                type="checkbox"
                checked={choice.scorers.includes(s.id)}
                onChange={(e) =>
                  setChoice({
                    ...choice,
                    scorers: toggle(choice.scorers, s.id, e.target.checked),
                  })
                }
              />{' '}
              {s.label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Relations (Eq. 9-10)</legend>
          {RELATION_SETS.map((r) => (
            <label key={r.id}>
              <input
                type="checkbox"
                checked={choice.relationSets.includes(r.id)}
                onChange={(e) =>
                  setChoice({
                    ...choice,
                    relationSets: toggle(choice.relationSets, r.id, e.target.checked),
                  })
                }
              />{' '}
              {r.label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Values (comma-separated)</legend>
          <label>
            alpha{' '}
            <input
              value={choice.alphas}
              onChange={(e) => setChoice({ ...choice, alphas: e.target.value })}
            />
          </label>
          <label>
            w_rel{' '}
            <input
              value={choice.wRels}
              onChange={(e) => setChoice({ ...choice, wRels: e.target.value })}
            />
          </label>
          <label>
            fragment sizes (words){' '}
            <input
              value={choice.fragmentWords}
              onChange={(e) => setChoice({ ...choice, fragmentWords: e.target.value })}
            />
          </label>
          <label>
            budgets{' '}
            <input
              value={choice.budgets}
              onChange={(e) => setChoice({ ...choice, budgets: e.target.value })}
            />
          </label>
          {(['words', 'tokens'] as const).map((u) => (
            <label key={u}>
              <input
                type="checkbox"
                checked={choice.units.includes(u)}
                onChange={(e) =>
                  setChoice({ ...choice, units: toggle(choice.units, u, e.target.checked) })
                }
              />{' '}
              in {u}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Run</legend>
          <label>
            questions (empty: all {b.items.length}){' '}
            <input
              type="number"
              min={1}
              value={sample}
              onChange={(e) => setSample(e.target.value)}
              data-testid="eval-sample"
            />
          </label>
          <label>
            baseline{' '}
            <select
              value={baselineKey}
              onChange={(e) => setBaselineChoice(e.target.value)}
              data-testid="eval-baseline"
            >
              {configs.map((c) => (
                <option key={configKey(c)} value={configKey(c)}>
                  {configLabel(c)}
                </option>
              ))}
            </select>
          </label>
        </fieldset>
        {gridState.problems.length > 0 && (
          <ul className="eval-error" role="alert">
            {gridState.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        <p data-testid="eval-grid-size">
          {configs.length} configurations × {chosenQuestions} questions ={' '}
          {configs.length * chosenQuestions} results, each at {gridState.spec?.budgets.length ?? 0}{' '}
          budgets.
        </p>
        <button type="submit" disabled={disabled}>
          Run the grid
        </button>
      </form>
    </section>
  );
}
