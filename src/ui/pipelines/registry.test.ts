import { describe, expect, it } from 'vitest';
import { COMPARE_PIPELINES } from '../../core/compare';
import { PIPELINE_IDS, PIPELINES } from '../../core/pipelines/registry';
import { PIPELINE_COLOURS, PIPELINE_VIEWS, type SettingField } from './registry';

describe("the page's pipeline table", () => {
  it.each(PIPELINE_IDS)('%s: has a colour and a field for settings it can set', (id) => {
    const view = PIPELINE_VIEWS[id];
    expect(view.colour).toMatch(/^#[0-9A-F]{6}$/i);
    expect(view.fields.length).toBeGreaterThan(0);
    const defaults = PIPELINES[id].defaults as unknown as Record<string, unknown>;
    const keys = new Set<string>();
    for (const field of view.fields as ReadonlyArray<SettingField<Record<string, unknown>>>) {
      if (field.kind === 'reranker') continue;
      expect(field.label.trim().length).toBeGreaterThan(2);
      expect(keys.has(field.key)).toBe(false);
      keys.add(field.key);
      const value = defaults[field.key];
      if (field.kind === 'number') {
        expect(typeof value).toBe('number');
        expect(value as number).toBeGreaterThanOrEqual(field.min);
        expect(value as number).toBeLessThanOrEqual(field.max);
      } else if (field.kind === 'check') {
        expect(typeof value).toBe('boolean');
      } else {
        expect(field.options.map((o) => o.value)).toContain(value);
      }
    }
    // The cross-encoder field is offered exactly where the pipeline takes one.
    expect(view.fields.some((f) => f.kind === 'reranker')).toBe(PIPELINES[id].helpers.reranker);
  });

  it('gives every Compare column its own colour', () => {
    const colours = COMPARE_PIPELINES.map((p) => PIPELINE_COLOURS[p]);
    for (const c of colours) expect(c).toMatch(/^#[0-9A-F]{6}$/i);
    expect(new Set(colours).size).toBe(COMPARE_PIPELINES.length);
  });
});
