/**
 * @file The wllama engine's fields: a .gguf file dropped or chosen (read in place), the
 * recommended models' catalogue, a URL, and the model's context, threads and GPU settings.
 */
import { useEffect, useRef } from 'react';
import { ggufUrl } from '../../llm/wllama';
import { GgufCatalogue } from './GgufCatalogue';
import { mb, type EngineSettingsProps } from './engine-fields';

export function WllamaFields(props: EngineSettingsProps & { idPrefix: string }) {
  const { settings, onChange, ggufFile, onGgufFile, idPrefix } = props;
  const area = useRef<HTMLDivElement>(null);

  // The whole window takes dropped files as books (DropZone). A .gguf dropped here is taken
  // first, in the capture phase, and the window's drop zone gets an empty drop so that it
  // closes its overlay without trying to index the model as a book.
  useEffect(() => {
    const onDrop = (e: DragEvent) => {
      if (!(e.target instanceof Node) || !area.current?.contains(e.target)) return;
      e.preventDefault();
      e.stopPropagation();
      const file = [...(e.dataTransfer?.files ?? [])].find((f) => /\.gguf$/i.test(f.name));
      const first = e.dataTransfer?.files?.[0];
      onGgufFile(file ?? first ?? null);
      window.dispatchEvent(
        new DragEvent('drop', { dataTransfer: new DataTransfer(), cancelable: true }),
      );
    };
    window.addEventListener('drop', onDrop, true);
    return () => window.removeEventListener('drop', onDrop, true);
  }, [onGgufFile]);

  return (
    <>
      <div
        ref={area}
        className="engine__drop"
        data-testid="gguf-drop"
        onDragOver={(e) => e.preventDefault()}
      >
        {ggufFile ? (
          <p>
            Model file: <strong data-testid="gguf-file">{ggufFile.name}</strong> (
            {mb(ggufFile.size)}){' '}
            <button type="button" onClick={() => onGgufFile(null)}>
              Use the URL instead
            </button>
          </p>
        ) : (
          <p>
            Drop a <code>.gguf</code> model file here, or{' '}
            <label className="engine__file">
              choose one
              <input
                type="file"
                accept=".gguf"
                aria-label="GGUF model file"
                onChange={(e) => {
                  const file = e.target.files?.[0] ?? null;
                  e.target.value = '';
                  onGgufFile(file);
                }}
              />
            </label>
            . It is read in place, never uploaded.
          </p>
        )}
      </div>
      {!ggufFile && props.onLoadUrl && (
        <GgufCatalogue
          hub={props.hub ?? settings.wllama.hub}
          onHubChange={
            props.onHubChange ??
            ((hub) => onChange({ ...settings, wllama: { ...settings.wllama, hub } }))
          }
          onLoadUrl={props.onLoadUrl}
          activeUrl={
            props.local && props.local.status !== 'error'
              ? (ggufUrl(settings.wllama.url) ?? null)
              : null
          }
          busy={props.busy || props.local?.status === 'loading'}
          idPrefix={idPrefix}
        />
      )}
      {!ggufFile && (
        <div className="engine__row">
          <label htmlFor={`${idPrefix}-url`}>GGUF URL</label>
          <input
            id={`${idPrefix}-url`}
            value={settings.wllama.url}
            spellCheck={false}
            placeholder="https://…/model.gguf or owner/repo/file.gguf"
            onChange={(e) =>
              onChange({ ...settings, wllama: { ...settings.wllama, url: e.target.value.trim() } })
            }
          />
        </div>
      )}
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-ctx`}>Context size (tokens)</label>
        <input
          id={`${idPrefix}-ctx`}
          type="number"
          min={256}
          step={256}
          value={settings.wllama.contextSize}
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v) && v >= 256)
              onChange({ ...settings, wllama: { ...settings.wllama, contextSize: Math.round(v) } });
          }}
        />
      </div>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-threads`}>CPU threads (0 = automatic)</label>
        <input
          id={`${idPrefix}-threads`}
          type="number"
          min={0}
          max={32}
          value={settings.wllama.threads}
          title="Automatic uses half of this computer's cores. Takes effect when the model is loaded."
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isInteger(v) && v >= 0 && v <= 32)
              onChange({ ...settings, wllama: { ...settings.wllama, threads: v } });
          }}
        />
      </div>
      <div className="engine__row">
        <label>
          <input
            type="checkbox"
            checked={settings.wllama.gpu}
            title="The same GGUF file runs on the GPU through WebGPU when this computer has one with 16-bit shaders; otherwise, or if WebGPU fails, on the CPU. Takes effect when the model is loaded."
            onChange={(e) =>
              onChange({ ...settings, wllama: { ...settings.wllama, gpu: e.target.checked } })
            }
          />{' '}
          Use the GPU (WebGPU) when there is one
        </label>
      </div>
    </>
  );
}
