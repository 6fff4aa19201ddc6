import { codeRelationKinds, RELATION_KINDS } from '../../core/relations/kinds';
import type { RelationKind, ScoringMode } from '../../workers/retrieval-types';
import type { CodeSettings } from './settings';
import { RangeField } from '../components/RangeField';

const RELATIONS = codeRelationKinds.map((kind) => ({
  kind,
  label: RELATION_KINDS[kind].codeLabel,
  help: RELATION_KINDS[kind].codeHelp,
}));

/** The knobs of a code run; each change re-ranks at once (nothing is re-indexed). */
export function CodeControls({
  settings,
  onChange,
}: {
  settings: CodeSettings;
  onChange: (next: CodeSettings) => void;
}) {
  const set = <K extends keyof CodeSettings>(key: K, value: CodeSettings[K]) =>
    onChange({ ...settings, [key]: value });
  const toggle = (kind: RelationKind, on: boolean) =>
    set(
      'relations',
      on
        ? [...new Set([...settings.relations, kind])]
        : settings.relations.filter((k) => k !== kind),
    );
  return (
    <fieldset className="controls" data-testid="code-controls">
      <legend>Code retrieval</legend>
      <RangeField
        label="α (environment weight)"
        ariaLabel="alpha for code"
        value={settings.alpha}
        min={0}
        max={2}
        step={0.05}
        digits={2}
        onChange={(v) => set('alpha', v)}
      />
      <label>
        Windows for the model
        <input
          type="number"
          min={1}
          max={50}
          value={settings.topWindows}
          onChange={(e) => {
            const n = Math.round(Number(e.target.value));
            if (n >= 1 && n <= 50) set('topWindows', n);
          }}
        />
      </label>
      <div className="controls__group" role="group" aria-label="Relations for code">
        <span>Relations</span>
        {RELATIONS.map((r) => (
          <label key={r.kind} className="inline" title={r.help}>
            <input
              type="checkbox"
              checked={settings.relations.includes(r.kind)}
              onChange={(e) => toggle(r.kind, e.target.checked)}
            />
            {r.label}
          </label>
        ))}
      </div>
      <label>
        Independent score
        <select
          value={settings.scoring}
          onChange={(e) => set('scoring', e.target.value as ScoringMode)}
        >
          <option value="bm25">BM25 (words; the paper’s choice for code)</option>
          <option value="dense">dense (embeddings)</option>
          <option value="hybrid">hybrid</option>
        </select>
      </label>
    </fieldset>
  );
}
