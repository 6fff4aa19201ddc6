/**
 * @file A pipeline's settings form, drawn from its fields in the page's pipeline table
 * (registry.ts) with the core's defaults (PIPELINES.md's values; sizes left at 0 are adapted to
 * the engine's window and the trace says how).
 */
import type { PipelineId, PipelineSettings } from '../../core/pipelines/registry';
import type { RerankerChoice } from './helpers';
import { PIPELINE_VIEWS, type SettingField } from './registry';

interface Props {
  pipeline: PipelineId;
  settings: PipelineSettings;
  onChange: (next: PipelineSettings) => void;
  disabled: boolean;
  /** The cross-encoder, for the pipelines that rerank. */
  reranker: RerankerChoice;
}

type Values = Record<string, unknown>;

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

function RerankerFields({ reranker, disabled }: { reranker: RerankerChoice; disabled: boolean }) {
  return (
    <>
      <label className="engine__row">
        <span>Cross-encoder</span>
        <span>
          <input
            type="text"
            value={reranker.id}
            disabled={disabled}
            placeholder="none: rerank by the retrieval score"
            aria-describedby="reranker-hint"
            onChange={(e) => reranker.setId(e.target.value.trim())}
          />
          <span id="reranker-hint" className="stats">
            {' '}
            A hub model with one logit per pair, e.g. Xenova/ms-marco-MiniLM-L-6-v2 (downloaded when
            you run).
          </span>
        </span>
      </label>
      {reranker.id && reranker.setHost && (
        <label className="engine__row">
          <span>Cross-encoder hub</span>
          <input
            type="url"
            value={reranker.host}
            disabled={disabled}
            placeholder={reranker.defaultHost ?? 'https://huggingface.co'}
            onChange={(e) => reranker.setHost?.(e.target.value.trim())}
          />
        </label>
      )}
    </>
  );
}

function Field({
  field,
  values,
  set,
  disabled,
  reranker,
}: {
  field: SettingField<Values>;
  values: Values;
  set: (patch: Values) => void;
  disabled: boolean;
  reranker: RerankerChoice;
}) {
  switch (field.kind) {
    case 'reranker':
      return <RerankerFields reranker={reranker} disabled={disabled} />;
    case 'number':
      return (
        <NumberField
          label={field.label}
          value={values[field.key] as number}
          min={field.min}
          max={field.max}
          {...(field.hint ? { hint: field.hint } : {})}
          disabled={disabled}
          onChange={(v) => set({ [field.key]: v })}
        />
      );
    case 'check':
      return (
        <label className="engine__row">
          <span>{field.label}</span>
          <input
            type="checkbox"
            checked={values[field.key] as boolean}
            disabled={disabled}
            onChange={(e) => set({ [field.key]: e.target.checked })}
          />
        </label>
      );
    case 'select':
      return (
        <label className="engine__row">
          <span>{field.label}</span>
          <select
            value={values[field.key] as string}
            disabled={disabled}
            data-testid={field.testId}
            onChange={(e) => set({ [field.key]: e.target.value })}
          >
            {field.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      );
  }
}

export function PipelineSettingsForm({ pipeline, settings, onChange, disabled, reranker }: Props) {
  const values = settings[pipeline] as unknown as Values;
  const fields = PIPELINE_VIEWS[pipeline].fields as ReadonlyArray<SettingField<Values>>;
  const set = (patch: Values) =>
    onChange({ ...settings, [pipeline]: { ...values, ...patch } } as PipelineSettings);
  return (
    <>
      {fields.map((field) => (
        <Field
          key={field.kind === 'reranker' ? 'reranker' : field.key}
          field={field}
          values={values}
          set={set}
          disabled={disabled}
          reranker={reranker}
        />
      ))}
    </>
  );
}
