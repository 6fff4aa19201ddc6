import { describe, expect, it } from 'vitest';
import { defaultCodeSettings } from '../code/settings';
import { codePresetNote, matchingCodePreset } from './CodePresetNote';

const repo = (referenceWeighted: boolean, scopeNames = true) => ({
  docId: 'r',
  name: 'trlx <b>',
  offset: 0,
  count: 10,
  referenceWeighted,
  scopeNames,
});

describe('the code preset note', () => {
  it('names the reference-weighted walk as the measured default, with its figures', () => {
    expect(matchingCodePreset(defaultCodeSettings)?.id).toBe('measured');
    const { why, weighted, fallback } = codePresetNote(defaultCodeSettings, [repo(true)]);
    expect(why).toMatch(/referenced/);
    expect(why).toMatch(/squared/);
    expect(why).toContain('+7.7 [+0.8, +15.2]');
    expect(why).toMatch(/class and function names, and alpha is 1/);
    expect(defaultCodeSettings.alpha).toBe(1);
    expect(weighted).toContain('“trlx <b>”: the walk weights each edge by the reference counts');
    expect(fallback).toBeNull();
  });

  it('says when a repository stored without reference counts walks unweighted edges', () => {
    const { weighted, fallback } = codePresetNote(defaultCodeSettings, [repo(false)]);
    expect(weighted).toBeNull();
    expect(fallback).toContain('“trlx <b>” was indexed before reference counts');
    expect(fallback).toMatch(/unweighted/);
    expect(fallback).toContain('+7.7 weighted and squared');
  });

  it('says when a repository stored without scope names is read by BM25 without them', () => {
    expect(codePresetNote(defaultCodeSettings, [repo(true)]).unscoped).toBeNull();
    const { unscoped } = codePresetNote(defaultCodeSettings, [repo(true, false)]);
    expect(unscoped).toContain('“trlx <b>” was indexed before scope names were stored');
    expect(unscoped).toMatch(/BM25 reads its windows without the names of the class and function/);
    // Also with the paper's relation (BM25 reads them whatever the relation); not with dense scores.
    const paper = { ...defaultCodeSettings, alpha: 0.5, relations: ['code' as const] };
    expect(codePresetNote(paper, [repo(true, false)]).unscoped).not.toBeNull();
    const dense = { ...defaultCodeSettings, scoring: 'dense' as const };
    expect(codePresetNote(dense, [repo(true, false)]).unscoped).toBeNull();
  });

  it('knows the paper defaults and custom settings; no fallback note without the walk', () => {
    const paper = { ...defaultCodeSettings, alpha: 0.5, relations: ['code' as const] };
    expect(matchingCodePreset(paper)?.id).toBe('paper');
    expect(codePresetNote(paper, [repo(false)]).fallback).toBeNull();
    const custom = { ...defaultCodeSettings, alpha: 0.7 };
    expect(matchingCodePreset(custom)).toBeNull();
    expect(codePresetNote(custom, null).why).toMatch(/Custom settings/);
  });
});
