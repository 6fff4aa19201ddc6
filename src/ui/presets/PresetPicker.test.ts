import { describe, expect, it } from 'vitest';
import { MINILM_EMBEDDER_ID, retrievalPreset } from '../../core/retrieval/presets';
import { defaultIndexSettings, type IndexSettings } from '../library-service';
import {
  embedderPresetNote,
  followMeasuredPreset,
  matchingPreset,
  presetRetrievalSettings,
} from './PresetPicker';

const glove: IndexSettings = { ...defaultIndexSettings };
const minilm: IndexSettings = { ...defaultIndexSettings, embedderId: MINILM_EMBEDDER_ID };

describe('book presets per embedder', () => {
  it('with MiniLM loaded, "measured" is the MiniLM preset, and it says so', () => {
    const p = retrievalPreset('prose', 'measured', MINILM_EMBEDDER_ID);
    expect(p).toMatchObject({
      embedder: MINILM_EMBEDDER_ID,
      scoring: 'hybrid',
      queryWords: 'content',
      relations: ['context', 'semantic'],
      wordsPerFragment: 200,
    });
    expect(p.why).toMatch(/MiniLM/);
    // The paper's preset does not depend on the embedder; the no-download one stays for GloVe.
    expect(retrievalPreset('prose', 'paper', MINILM_EMBEDDER_ID)).toBe(
      retrievalPreset('prose', 'paper'),
    );
    expect(retrievalPreset('prose', 'measured', glove.embedderId).scoring).toBe('bm25');
  });

  it('recognises the MiniLM preset only with MiniLM as the embedder', () => {
    const settings = presetRetrievalSettings(
      retrievalPreset('prose', 'measured', MINILM_EMBEDDER_ID),
    );
    expect(matchingPreset(settings, { ...minilm, wordsPerFragment: 200 })?.embedder).toBe(
      MINILM_EMBEDDER_ID,
    );
    expect(matchingPreset(settings, { ...glove, wordsPerFragment: 200 })).toBeNull();
  });

  it('switching to MiniLM with the measured preset on brings the MiniLM preset, and back', () => {
    const measured = presetRetrievalSettings(retrievalPreset('prose', 'measured'));
    const to = followMeasuredPreset(measured, glove, minilm)!;
    expect(to.preset.embedder).toBe(MINILM_EMBEDDER_ID);
    expect(to.index).toEqual({ ...minilm, wordsPerFragment: 200 });
    expect(to.retrieval).toMatchObject({ scoring: 'hybrid', relations: ['context', 'semantic'] });
    // The budget the user chose is kept.
    expect(to.retrieval.budget).toBe(measured.budget);

    const back = followMeasuredPreset(to.retrieval, to.index, glove)!;
    expect(back.retrieval).toEqual(measured);
    expect(back.index.wordsPerFragment).toBe(100);
  });

  it('leaves settings the user moved, the paper preset and same-embedder changes alone', () => {
    const measured = presetRetrievalSettings(retrievalPreset('prose', 'measured'));
    expect(followMeasuredPreset({ ...measured, alpha: 1 }, glove, minilm)).toBeNull();
    const paper = presetRetrievalSettings(retrievalPreset('prose', 'paper'));
    expect(followMeasuredPreset(paper, { ...glove, wordsPerFragment: 500 }, minilm)).toBeNull();
    expect(followMeasuredPreset(measured, glove, { ...glove, semanticK: 8 })).toBeNull();
  });

  it('says why the MiniLM preset is not on when choosing MiniLM kept custom settings', () => {
    const measured = presetRetrievalSettings(retrievalPreset('prose', 'measured'));
    // A knob moved, then MiniLM chosen: the preset does not follow, and the panel says why.
    const moved = { ...measured, alpha: 1 };
    expect(followMeasuredPreset(moved, glove, minilm)).toBeNull();
    const note = embedderPresetNote(moved, { ...minilm, wordsPerFragment: 100 })!;
    expect(note).toContain('Measured best (books, MiniLM)');
    expect(note).toContain('moved away from a preset');
    const paper = presetRetrievalSettings(retrievalPreset('prose', 'paper'));
    expect(embedderPresetNote(paper, { ...minilm, wordsPerFragment: 500 })).toContain(
      "the paper's settings are on",
    );
    // Nothing to say once it is on, or for an embedder without a preset of its own.
    const to = followMeasuredPreset(measured, glove, minilm)!;
    expect(embedderPresetNote(to.retrieval, to.index)).toBeNull();
    expect(embedderPresetNote(moved, glove)).toBeNull();
  });
});
