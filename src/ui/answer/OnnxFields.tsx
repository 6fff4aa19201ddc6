/**
 * @file The ONNX engine's fields: the model (a hub name in transformers.js's layout, the
 * recommended one by default), its context and threads. The hub host is the page's one setting.
 */
import { RECOMMENDED_ONNX_MODEL } from '../../llm/onnx/catalogue';
import type { EngineSettingsProps } from './engine-fields';
import { measuredAnswerText } from './ReadingBudget';

export function OnnxFields(props: EngineSettingsProps & { idPrefix: string }) {
  const { settings, onChange, idPrefix } = props;
  const onnx = settings.onnx;
  const set = (next: Partial<typeof onnx>) => onChange({ ...settings, onnx: { ...onnx, ...next } });
  const hub = (props.hub ?? onnx.hub).replace(/^https?:\/\//, '').replace(/\/+$/, '');
  return (
    <>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-model`}>Model</label>
        <input
          id={`${idPrefix}-model`}
          type="text"
          spellCheck={false}
          value={onnx.modelId}
          placeholder={RECOMMENDED_ONNX_MODEL.id}
          onChange={(e) => set({ modelId: e.target.value })}
        />
      </div>
      <p className="engine__hint" data-testid="onnx-hint">
        {onnx.modelId === RECOMMENDED_ONNX_MODEL.id
          ? `${RECOMMENDED_ONNX_MODEL.label} (${RECOMMENDED_ONNX_MODEL.licence}, up to ${RECOMMENDED_ONNX_MODEL.downloadMB} MB), `
          : 'A decoder model with a KV cache in the hub’s ONNX layout (config.json, tokenizer.json, onnx/model.onnx), '}
        downloaded once from {hub} and kept in the browser. ONNX Runtime reads a prompt several
        times faster than wllama on the same CPU.{' '}
        <span data-testid="onnx-measured">{measuredAnswerText(onnx.modelId, 'onnx')}.</span>
      </p>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-context`}>Context (tokens)</label>
        <input
          id={`${idPrefix}-context`}
          type="number"
          min={256}
          max={131072}
          step={256}
          value={onnx.contextSize}
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v) && v >= 256) set({ contextSize: Math.round(v) });
          }}
        />
      </div>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-threads`}>CPU threads</label>
        <input
          id={`${idPrefix}-threads`}
          type="number"
          min={0}
          max={32}
          value={onnx.threads}
          title="0 = automatic (half the cores, where the page can run threads)"
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v) && v >= 0) set({ threads: Math.round(v) });
          }}
        />
      </div>
    </>
  );
}
