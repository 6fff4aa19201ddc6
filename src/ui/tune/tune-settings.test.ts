import { describe, expect, it } from 'vitest';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import { asAppliedTuning, describeConfig, sameRanking, withTuned } from './tune-settings';

const current: RetrievalSettings = {
  alpha: 2,
  wRel: 0.3,
  relations: ['ppr'],
  scoring: 'bm25',
  budget: 2000,
  queryWords: 'content',
};

describe('applying a tuned configuration', () => {
  it('changes relations, alpha and w_rel only; plain keeps the relations and sets alpha 0', () => {
    const next = withTuned(current, { relations: ['context', 'semantic'], alpha: 0.75, wRel: 0.5 });
    expect(next).toEqual({
      ...current,
      relations: ['context', 'semantic'],
      alpha: 0.75,
      wRel: 0.5,
    });
    expect(withTuned(current, { relations: [], alpha: 0, wRel: 0 })).toEqual({
      ...current,
      alpha: 0,
    });
    expect(sameRanking(next, { ...next, relations: ['semantic', 'context'] })).toBe(true);
    expect(sameRanking(next, current)).toBe(false);
    expect(sameRanking(next, { ...next, budget: 1000 })).toBe(false);
  });

  it('reads back only a well-formed stored record', () => {
    const record = { previous: current, tuned: current, docName: 'pg11.txt', at: 'now' };
    expect(asAppliedTuning(record)).toEqual(record);
    expect(asAppliedTuning(null)).toBeNull();
    expect(asAppliedTuning({ previous: current, tuned: { alpha: 'x' }, docName: 'a' })).toBeNull();
    expect(asAppliedTuning('<img src=x onerror=alert(1)>')).toBeNull();
  });

  it('names a configuration in the panel’s words', () => {
    expect(describeConfig({ relations: ['semantic'], alpha: 0.5, wRel: 0.1 })).toBe(
      'semantic, α 0.5',
    );
    expect(describeConfig({ relations: ['context'], alpha: 1, wRel: 0.3 })).toBe(
      'context, α 1, w_rel 0.3',
    );
    expect(describeConfig({ relations: [], alpha: 0, wRel: 0 })).toBe('plain retrieval (α 0)');
  });
});
