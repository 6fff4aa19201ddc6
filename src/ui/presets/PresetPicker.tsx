import { retrievalPreset, type PresetId, type RetrievalPreset } from '../../core/retrieval/presets';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import type { IndexSettings } from '../library-service';

/** Retrieval settings of a book preset (core/retrieval/presets.ts) at the default budget. */
export function presetRetrievalSettings(preset: RetrievalPreset): RetrievalSettings {
  return {
    alpha: preset.alpha,
    wRel: preset.wRel,
    relations: [...preset.relations],
    scoring: preset.scoring,
    budget: 2000,
    queryWords: preset.queryWords,
  };
}

/** The settings with a preset's ranking knobs (the budget stays as it is). */
function withPreset(retrieval: RetrievalSettings, p: RetrievalPreset): RetrievalSettings {
  return {
    ...retrieval,
    alpha: p.alpha,
    wRel: p.wRel,
    relations: [...p.relations],
    scoring: p.scoring,
    queryWords: p.queryWords,
  };
}

/** Which book preset the settings match, or null when the user has moved a knob. */
export function matchingPreset(
  retrieval: RetrievalSettings,
  index: IndexSettings,
): RetrievalPreset | null {
  for (const id of ['measured', 'paper'] as PresetId[]) {
    const p = retrievalPreset('prose', id, index.embedderId);
    const same =
      p.scoring === retrieval.scoring &&
      p.alpha === retrieval.alpha &&
      p.wRel === retrieval.wRel &&
      (retrieval.queryWords ?? 'all') === p.queryWords &&
      p.wordsPerFragment === index.wordsPerFragment &&
      p.relations.length === retrieval.relations.length &&
      p.relations.every((r) => retrieval.relations.includes(r));
    if (same) return p;
  }
  return null;
}

/**
 * When the embedder changes while the measured book preset is on, the measured preset of the
 * new embedder (MiniLM has its own, core/retrieval/presets.ts) follows, fragment size included;
 * settings the user moved away from the preset stay as they are. Null: nothing to change.
 */
export function followMeasuredPreset(
  retrieval: RetrievalSettings,
  previous: IndexSettings,
  next: IndexSettings,
): { retrieval: RetrievalSettings; index: IndexSettings; preset: RetrievalPreset } | null {
  if (previous.embedderId === next.embedderId) return null;
  const on = matchingPreset(retrieval, previous);
  if (on?.id !== 'measured') return null;
  const p = retrievalPreset('prose', 'measured', next.embedderId);
  if (p === on) return null;
  return {
    retrieval: withPreset(retrieval, p),
    index: p.wordsPerFragment === null ? next : { ...next, wordsPerFragment: p.wordsPerFragment },
    preset: p,
  };
}

/**
 * Why the embedder's own measured preset is not on, when it has one (MiniLM) and the settings
 * are something else: picking the embedder brings its preset only while the measured preset was
 * on, so settings the person moved stay theirs; the panel says so instead of leaving the old
 * ranking in place without a word. Null when there is nothing to say.
 */
export function embedderPresetNote(
  retrieval: RetrievalSettings,
  index: IndexSettings,
): string | null {
  const own = retrievalPreset('prose', 'measured', index.embedderId);
  if (!own.embedder) return null;
  const on = matchingPreset(retrieval, index);
  if (on === own) return null;
  const now =
    on?.id === 'paper'
      ? `the paper's settings are on`
      : 'the settings were moved away from a preset';
  return (
    `${index.embedderId} has its own measured preset, “${own.label}”, but ${now}, so ` +
    `choosing the embedder kept them (it follows only from the measured preset). ` +
    `Press “${own.label}” to use it.`
  );
}

/**
 * The measured defaults and the paper's, one click apart, with the reason for the one that is on
 * (the text comes from core, so the panel and BENCHMARKS.md say the same).
 */
export function PresetPicker({
  retrieval,
  index,
  onRetrieval,
  onIndex,
}: {
  retrieval: RetrievalSettings;
  index: IndexSettings;
  onRetrieval: (next: RetrievalSettings) => void;
  onIndex: (next: IndexSettings) => void;
}) {
  const on = matchingPreset(retrieval, index);
  const note = embedderPresetNote(retrieval, index);
  const apply = (id: PresetId) => {
    const p = retrievalPreset('prose', id, index.embedderId);
    onRetrieval(withPreset(retrieval, p));
    if (p.wordsPerFragment !== null && p.wordsPerFragment !== index.wordsPerFragment) {
      onIndex({ ...index, wordsPerFragment: p.wordsPerFragment });
    }
  };
  return (
    <div className="controls__group" role="group" aria-label="Presets" data-testid="presets">
      <span>Preset</span>
      {(['measured', 'paper'] as PresetId[]).map((id) => (
        <button key={id} type="button" aria-pressed={on?.id === id} onClick={() => apply(id)}>
          {retrievalPreset('prose', id, index.embedderId).label}
        </button>
      ))}
      <p className="hint" data-testid="preset-why">
        {on ? on.why : 'Custom settings: a knob was moved away from both presets.'}
      </p>
      {note && (
        <p className="hint" data-testid="preset-embedder-note">
          {note}
        </p>
      )}
    </div>
  );
}
