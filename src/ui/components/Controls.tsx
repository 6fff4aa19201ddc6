import type { RelationKind, RetrievalSettings, ScoringMode } from '../../workers/retrieval-types';
import type { IndexSettings } from '../library-service';
import { PresetPicker } from '../presets/PresetPicker';
import { RangeField } from './RangeField';

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
  onRetrieval,
  onIndex,
}: {
  retrieval: RetrievalSettings;
  index: IndexSettings;
  embedders: EmbedderChoice[];
  onRetrieval: (next: RetrievalSettings) => void;
  onIndex: (next: IndexSettings) => void;
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
    <fieldset className="controls">
      <legend>Retrieval</legend>
      <PresetPicker
        retrieval={retrieval}
        index={index}
        onRetrieval={onRetrieval}
        onIndex={onIndex}
      />
      <RangeField
        label="α (environment weight)"
        ariaLabel="alpha"
        value={retrieval.alpha}
        min={0}
        max={2}
        step={0.05}
        digits={2}
        onChange={(v) => set('alpha', v)}
      />
      <RangeField
        label="w_rel (context decay)"
        ariaLabel="w_rel"
        value={retrieval.wRel}
        min={0}
        max={0.95}
        step={0.05}
        digits={2}
        onChange={(v) => set('wRel', v)}
      />
      <RangeField
        label="Budget (words)"
        ariaLabel="budget"
        value={retrieval.budget}
        min={500}
        max={28000}
        step={500}
        onChange={(v) => set('budget', v)}
      />
      <div className="controls__group" role="group" aria-label="Relations">
        <span>Relations</span>
        {(['context', 'semantic', 'ppr'] as const).map((kind) => (
          <label key={kind} className="inline">
            <input
              type="checkbox"
              checked={retrieval.relations.includes(kind)}
              onChange={(e) => toggleRelation(kind, e.target.checked)}
            />
            {kind === 'ppr' ? 'multi-hop (PageRank)' : kind}
          </label>
        ))}
      </div>
      <label>
        Independent score
        <select
          value={retrieval.scoring}
          onChange={(e) => set('scoring', e.target.value as ScoringMode)}
        >
          <option value="dense">dense (embeddings)</option>
          <option value="bm25">BM25 (words)</option>
          <option value="hybrid">hybrid</option>
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
  );
}
