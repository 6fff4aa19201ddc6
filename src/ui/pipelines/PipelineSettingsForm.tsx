/**
 * @file Each pipeline's settings with their defaults (PIPELINES.md's values; sizes left at 0 are
 * adapted to the engine's window and the trace says how).
 */
import { LONGRAG_MODES, type LongRagMode } from '../../core/pipelines/longrag';
import type { QrmemVariant } from '../../core/pipelines/qrmem/settings';
import type { PipelineId, PipelineSettings } from './registry';

interface Props {
  pipeline: PipelineId;
  settings: PipelineSettings;
  onChange: (next: PipelineSettings) => void;
  disabled: boolean;
  /** LongRAG's cross-encoder (a hub id), '' for none. */
  reranker: string;
  onReranker: (id: string) => void;
  /** Where the cross-encoder is downloaded from ('' = the library's hub host, shown as hint). */
  rerankerHost?: string;
  onRerankerHost?: (host: string) => void;
  defaultHost?: string;
}

function NumberField({
  label,
  value,
  min,
  max,
  hint,
  disabled,
  onChange,
}: {
  label: string;
  value: number;
  min: number;
  max: number;
  hint?: string;
  disabled: boolean;
  onChange: (v: number) => void;
}) {
  return (
    <label className="engine__row">
      <span>{label}</span>
      <span>
        <input
          type="number"
          value={value}
          min={min}
          max={max}
          disabled={disabled}
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v)) onChange(Math.min(max, Math.max(min, Math.round(v))));
          }}
        />
        {hint && <span className="stats"> {hint}</span>}
      </span>
    </label>
  );
}

export function PipelineSettingsForm({
  pipeline,
  settings,
  onChange,
  disabled,
  reranker,
  onReranker,
  rerankerHost = '',
  onRerankerHost,
  defaultHost,
}: Props) {
  if (pipeline === 'fragrel') {
    const s = settings.fragrel;
    return (
      <NumberField
        label="Answer tokens"
        value={s.answerTokens}
        min={16}
        max={4096}
        disabled={disabled}
        onChange={(answerTokens) => onChange({ ...settings, fragrel: { ...s, answerTokens } })}
      />
    );
  }
  if (pipeline === 'longrag') {
    const s = settings.longrag;
    const set = (patch: Partial<typeof s>) =>
      onChange({ ...settings, longrag: { ...s, ...patch } });
    return (
      <>
        <label className="engine__row">
          <span>Mode</span>
          <select
            value={s.mode}
            disabled={disabled}
            data-testid="longrag-mode"
            onChange={(e) => set({ mode: e.target.value as LongRagMode })}
          >
            {(Object.keys(LONGRAG_MODES) as LongRagMode[]).map((m) => (
              <option key={m} value={m}>
                {m}: {LONGRAG_MODES[m]}
              </option>
            ))}
          </select>
        </label>
        <label className="engine__row">
          <span>Cross-encoder</span>
          <span>
            <input
              type="text"
              value={reranker}
              disabled={disabled}
              placeholder="none: rerank by the retrieval score"
              aria-describedby="reranker-hint"
              onChange={(e) => onReranker(e.target.value.trim())}
            />
            <span id="reranker-hint" className="stats">
              {' '}
              A hub model with one logit per pair, e.g. Xenova/ms-marco-MiniLM-L-6-v2 (downloaded
              when you run).
            </span>
          </span>
        </label>
        {reranker && onRerankerHost && (
          <label className="engine__row">
            <span>Cross-encoder hub</span>
            <input
              type="url"
              value={rerankerHost}
              disabled={disabled}
              placeholder={defaultHost ?? 'https://huggingface.co'}
              onChange={(e) => onRerankerHost(e.target.value.trim())}
            />
          </label>
        )}
        <NumberField
          label="Candidates (top k1)"
          value={s.topK1}
          min={1}
          max={1000}
          disabled={disabled}
          onChange={(topK1) => set({ topK1 })}
        />
        <NumberField
          label="Chunks kept (top k2)"
          value={s.topK2}
          min={1}
          max={30}
          disabled={disabled}
          onChange={(topK2) => set({ topK2 })}
        />
        <NumberField
          label="Answer tokens"
          value={s.answerTokens}
          min={8}
          max={1024}
          hint="LongBench: 32"
          disabled={disabled}
          onChange={(answerTokens) => set({ answerTokens })}
        />
        <NumberField
          label="Fragments per paragraph"
          value={s.paragraphFragments}
          min={1}
          max={20}
          disabled={disabled}
          onChange={(paragraphFragments) => set({ paragraphFragments })}
        />
        <NumberField
          label="CoT output (tokens)"
          value={s.cotTokens}
          min={0}
          max={4096}
          hint="0 = fit to the window (1,000 at 4K, 512 at 2K)"
          disabled={disabled}
          onChange={(cotTokens) => set({ cotTokens })}
        />
        <NumberField
          label="Extractor output (tokens)"
          value={s.extractorTokens}
          min={0}
          max={4096}
          hint="0 = fit to the window (512 at 4K, 256 at 2K)"
          disabled={disabled}
          onChange={(extractorTokens) => set({ extractorTokens })}
        />
      </>
    );
  }
  if (pipeline === 'qrmem') {
    const q = settings.qrmem;
    const setQ = (patch: Partial<typeof q>) => onChange({ ...settings, qrmem: { ...q, ...patch } });
    return (
      <>
        <label className="engine__row">
          <span>Navigation</span>
          <select
            value={q.variant}
            disabled={disabled}
            onChange={(e) => setQ({ variant: e.target.value as QrmemVariant })}
          >
            <option value="kn">QRMeM: reflection rounds (KN)</option>
            <option value="ges">Graph expansion search (GES)</option>
            <option value="te">Entity trial (TE)</option>
          </select>
        </label>
        <NumberField
          label="Trials at most"
          value={q.maxTrials}
          min={1}
          max={5}
          hint="KN and TE; default 3"
          disabled={disabled}
          onChange={(maxTrials) => setQ({ maxTrials })}
        />
        <NumberField
          label="GES hops"
          value={q.gesHops}
          min={1}
          max={10}
          hint="default 3"
          disabled={disabled}
          onChange={(gesHops) => setQ({ gesHops })}
        />
        <NumberField
          label="GES edges per hop"
          value={q.gesTopEdges}
          min={1}
          max={10}
          hint="default 3"
          disabled={disabled}
          onChange={(gesTopEdges) => setQ({ gesTopEdges })}
        />
        <NumberField
          label="Generated questions"
          value={q.questions}
          min={0}
          max={10}
          hint="0 = no graph update; default 5"
          disabled={disabled}
          onChange={(questions) => setQ({ questions })}
        />
        <label className="engine__row">
          <span>LLM entities (besides NER)</span>
          <input
            type="checkbox"
            checked={q.llmEntities}
            disabled={disabled}
            onChange={(e) => setQ({ llmEntities: e.target.checked })}
          />
        </label>
        <label className="engine__row">
          <span>Reflection (reason in the edge query)</span>
          <input
            type="checkbox"
            checked={q.reflection}
            disabled={disabled}
            onChange={(e) => setQ({ reflection: e.target.checked })}
          />
        </label>
        <NumberField
          label="Segment tokens"
          value={q.segmentTokens}
          min={0}
          max={4000}
          hint="0 = 600 at 4K, 300 below"
          disabled={disabled}
          onChange={(segmentTokens) => setQ({ segmentTokens })}
        />
        <NumberField
          label="Answer tokens"
          value={q.answerTokens}
          min={8}
          max={1024}
          disabled={disabled}
          onChange={(answerTokens) => setQ({ answerTokens })}
        />
        <NumberField
          label="Extraction output (tokens)"
          value={q.extractTokens}
          min={16}
          max={4096}
          hint="entities and relations; default 512"
          disabled={disabled}
          onChange={(extractTokens) => setQ({ extractTokens })}
        />
        <NumberField
          label="Parse retries"
          value={q.maxRetries}
          min={0}
          max={4}
          hint="after a reply that cannot be read, at temperature 0.7; default 4"
          disabled={disabled}
          onChange={(maxRetries) => setQ({ maxRetries })}
        />
        <NumberField
          label="Judge output (tokens)"
          value={q.judgeTokens}
          min={16}
          max={4096}
          hint="default 256"
          disabled={disabled}
          onChange={(judgeTokens) => setQ({ judgeTokens })}
        />
      </>
    );
  }
  const s = settings.segment;
  const set = (patch: Partial<typeof s>) => onChange({ ...settings, segment: { ...s, ...patch } });
  return (
    <>
      <label className="engine__row">
        <span>LLM judge</span>
        <input
          type="checkbox"
          checked={s.llmJudge}
          disabled={disabled}
          onChange={(e) => set({ llmJudge: e.target.checked })}
        />
      </label>
      <label className="engine__row">
        <span>Merged evidence</span>
        <select
          value={s.evidenceMerge}
          disabled={disabled}
          onChange={(e) => set({ evidenceMerge: e.target.value as 'A' | 'B' })}
        >
          <option value="B">B: the model merges it (published prompt)</option>
          <option value="A">A: quotes concatenated, the model writes the reasoning</option>
        </select>
      </label>
      <NumberField
        label="Segment tokens"
        value={s.segmentTokens}
        min={0}
        max={32000}
        hint="0 = fit to the window"
        disabled={disabled}
        onChange={(segmentTokens) => set({ segmentTokens })}
      />
      <NumberField
        label="Note output (tokens)"
        value={s.noteTokens}
        min={0}
        max={4096}
        hint="notes and merges; 0 = 768 at 4K, 384 below"
        disabled={disabled}
        onChange={(noteTokens) => set({ noteTokens })}
      />
      <NumberField
        label="Merge rounds at most"
        value={s.maxRounds}
        min={1}
        max={10}
        disabled={disabled}
        onChange={(maxRounds) => set({ maxRounds })}
      />
      <NumberField
        label="Answer tokens"
        value={s.answerTokens}
        min={8}
        max={1024}
        disabled={disabled}
        onChange={(answerTokens) => set({ answerTokens })}
      />
    </>
  );
}
