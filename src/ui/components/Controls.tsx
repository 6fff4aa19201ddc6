import { bookRelationKinds, RELATION_KINDS } from '../../core/relations/kinds';
import type { RelationKind, RetrievalSettings, ScoringMode } from '../../workers/retrieval-types';
import type { IndexSettings } from '../library-service';
import { PresetPicker } from '../presets/PresetPicker';
import { RangeField } from './RangeField';
import { HubHostField } from '../hub/HubHostField';

/**
 * A transformer reads at most 512 word pieces of a fragment (transformers.js truncates at the
 * tokenizer's limit; about 390 words of English prose): beyond that, a fragment's vector is its
 * beginning's. Measured on War and Peace at 500 words: 1,123 of 1,126 fragments are cut, 22% of
 * the word pieces unread (BENCHMARKS.md). BM25 reads every word.
 */
export function truncationNote(index: IndexSettings): string | null {
  const offline = index.embedderId.startsWith('static-');
  if (offline || index.wordsPerFragment < 400) return null;
  return (
    `The transformer reads the first 512 word pieces (about 390 words) of each fragment: at ` +
    `${index.wordsPerFragment} words a fragment, the rest of the fragment is not embedded ` +
    `(BM25 still reads every word). Choose 200 words to embed all of it.`
  );
}

export interface EmbedderChoice {
  id: string;
  label: string;
}

/**
 * The knobs of the method. alpha, w_rel, relation kinds, scoring and budget re-rank at once
 * (no re-embedding); the embedder and fragment size re-index what depends on them.
 */
export function Controls({
  retrieval,
  index,
  embedders,
  offlineNote,
  onRetrieval,
  onIndex,
  onHubHost,
}: {
  retrieval: RetrievalSettings;
  index: IndexSettings;
  embedders: EmbedderChoice[];
  /** Which offline vectors this build has (offline-vectors.ts). */
  offlineNote?: string;
  onRetrieval: (next: RetrievalSettings) => void;
  onIndex: (next: IndexSettings) => void;
  /** The one hub-host setting changed (nothing is re-indexed for it). */
  onHubHost?: (host: string) => void;
}) {
  const set = <K extends keyof RetrievalSettings>(key: K, value: RetrievalSettings[K]) =>
    onRetrieval({ ...retrieval, [key]: value });
  const toggleRelation = (kind: RelationKind, on: boolean) =>
    set(
      'relations',
      on
        ? [...new Set([...retrieval.relations, kind])]
        : retrieval.relations.filter((k) => k !== kind),
    );

  return (
    <section className="settings" aria-labelledby="settings-title">
      <h2 id="settings-title" className="card__title">
        How passages are chosen
      </h2>
      <PresetPicker
        retrieval={retrieval}
        index={index}
        onRetrieval={onRetrieval}
        onIndex={onIndex}
      />
      <fieldset className="controls">
        <legend className="visually-hidden">Retrieval</legend>
        <RangeField
          label="How much neighbouring passages count"
          ariaLabel="alpha"
          title="α in the paper (Eq. 10): final = own relevance + α × neighbours' relevance. 0 ignores the neighbours."
          value={retrieval.alpha}
          min={0}
          max={2}
          step={0.05}
          digits={2}
          onChange={(v) => set('alpha', v)}
        />
        <RangeField
          label="Context budget (words)"
          ariaLabel="budget"
          title="Eq. 11: passages are taken best first until this many words are used; this is what the model reads."
          value={retrieval.budget}
          min={500}
          max={28000}
          step={500}
          onChange={(v) => set('budget', v)}
        />
      </fieldset>
      <details className="advanced" data-testid="advanced">
        <summary>Advanced: the method, its symbols and the index</summary>
        <p className="help">
          FragRel scores every fragment c<sub>i</sub> of the text for the question x. Its own
          relevance s<sub>ind</sub> = sim(x, c<sub>i</sub>) (Eq. 4); its environment s<sub>env</sub>
          [i] = Σ<sub>j</sub> w<sub>ij</sub> s<sub>ind</sub>[j] / Σ<sub>j</sub> w<sub>ij</sub>, the
          relevance of related fragments (Eq. 9); the final score s<sub>rel</sub> = s<sub>ind</sub>{' '}
          + α s<sub>env</sub> (Eq. 10). Fragments are taken by final score until the budget is full
          (Eq. 11). The context relation weighs neighbours by w<sub>rel</sub>
          <sup>|i − j|</sup> (Eq. 7); the semantic one by max(0, cos) between fragments (Eq. 6; the
          paper prints 1 − cos, a distance). Raw scores are in the ranked list and in “Why this
          fragment”.
        </p>
        <fieldset className="controls">
          <legend className="visually-hidden">Method</legend>
          <RangeField
            label="How far the neighbourhood reaches (w_rel)"
            ariaLabel="w_rel"
            title="Eq. 7: a neighbour d passages away weighs w_rel^d."
            value={retrieval.wRel}
            min={0}
            max={0.95}
            step={0.05}
            digits={2}
            onChange={(v) => set('wRel', v)}
          />
          <div className="controls__group" role="group" aria-label="Relations">
            <span>Neighbours are</span>
            {bookRelationKinds.map((kind) => (
              <label key={kind} className="inline">
                <input
                  type="checkbox"
                  checked={retrieval.relations.includes(kind)}
                  onChange={(e) => toggleRelation(kind, e.target.checked)}
                />
                {RELATION_KINDS[kind].bookLabel}
              </label>
            ))}
          </div>
          <label>
            Own relevance (independent score) from
            <select
              value={retrieval.scoring}
              onChange={(e) => set('scoring', e.target.value as ScoringMode)}
            >
              <option value="dense">meaning (embeddings)</option>
              <option value="bm25">words (BM25)</option>
              <option value="hybrid">both (hybrid)</option>
            </select>
          </label>
          <label>
            Embedder
            <select
              value={index.embedderId}
              onChange={(e) => onIndex({ ...index, embedderId: e.target.value })}
            >
              {embedders.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
          {onHubHost && <HubHostField host={index.hubHost} onHost={onHubHost} />}
          {offlineNote && (
            <p className="hint" data-testid="offline-vectors">
              {offlineNote}
            </p>
          )}
          {truncationNote(index) && (
            <p className="hint" data-testid="embedder-truncation">
              {truncationNote(index)}
            </p>
          )}
          <label>
            Fragment size
            <select
              value={index.wordsPerFragment}
              onChange={(e) => onIndex({ ...index, wordsPerFragment: Number(e.target.value) })}
            >
              <option value={100}>100 words (measured best)</option>
              <option value={200}>200 words</option>
              <option value={500}>500 words (paper default)</option>
              <option value={800}>800 words</option>
            </select>
          </label>
        </fieldset>
      </details>
    </section>
  );
}
