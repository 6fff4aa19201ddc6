import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../../../test/glove';
import { levalSubsetOf, parseLevalJsonl, splitQualityOptions } from './leval';

const file = (name: string) => sharedDatasetPath('leval', name);

describe('parseLevalJsonl on the shared L-Eval files', () => {
  it('reads QuALITY: stems without options, the correct option as gold text', () => {
    const r = parseLevalJsonl(readFileSync(file('quality.jsonl'), 'utf8'), 'quality');
    if (!r.ok) throw new Error(r.error);
    const questions = r.value.flatMap((d) => d.questions);
    expect(r.value).toHaveLength(15);
    expect(questions).toHaveLength(202);
    const q = questions[0];
    expect(q.query).toBe("Why did the Tr'en leave Korvin's door unlocked and a weapon nearby?");
    expect(q.options).toHaveLength(4);
    expect(q.goldText).toMatch(/^Their subconscious knew that Korvin/);
    expect(q.options).toContain(q.goldText);
    expect(questions.every((x) => x.options.length === 4)).toBe(true);
  });

  it('reads Qasper and SFiction with their query and gold rules', () => {
    const qasper = parseLevalJsonl(
      readFileSync(file('scientific_qa.jsonl'), 'utf8'),
      levalSubsetOf('scientific_qa.jsonl'),
    );
    if (!qasper.ok) throw new Error(qasper.error);
    const qs = qasper.value.flatMap((d) => d.questions);
    expect(qs).toHaveLength(184);
    for (const q of qs) {
      if (/^(yes|no|unanswerable)\.?$/i.test(q.output.trim())) expect(q.goldText).toBeNull();
      else expect(q.goldText).toBe(q.output.trim());
    }
    const sf = parseLevalJsonl(readFileSync(file('sci_fi.jsonl'), 'utf8'), 'sfiction');
    if (!sf.ok) throw new Error(sf.error);
    const s = sf.value.flatMap((d) => d.questions);
    expect(s).toHaveLength(64);
    expect(s[0].query).toBe(
      'humans have mastered interstellar travel, a technology that allows them to travel light-years away to another star system, Sirius',
    );
    expect(s.every((x) => !/True or False/i.test(x.query) && !/^\d+\./.test(x.query))).toBe(true);
  });
});

describe('parseLevalJsonl on malformed input', () => {
  it('names the line and what was expected', () => {
    const bad = parseLevalJsonl(
      '{"input": "x", "instructions": ["q"], "outputs": ["a"]}\nnot json',
      'other',
    );
    expect(bad).toEqual({ ok: false, error: expect.stringMatching(/^Line 2 is not JSON/) });
    const wrong = parseLevalJsonl('{"context": "x", "input": "q", "answers": ["a"]}', 'other');
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.error).toMatch(/"instructions" and "outputs"/);
    const unpaired = parseLevalJsonl(
      '{"input": "x", "instructions": ["q", "r"], "outputs": ["a"]}',
      'other',
    );
    expect(unpaired.ok).toBe(false);
    expect(parseLevalJsonl('\n\n', 'other').ok).toBe(false);
  });

  it('splits QuALITY options and keeps a stem without options whole', () => {
    const { stem, options } = splitQualityOptions(
      'Who?\n\n (A) one \n (B) two\n (C) three \n (D) four ',
    );
    expect(stem).toBe('Who?');
    expect(options).toEqual(['one', 'two', 'three', 'four']);
    expect(splitQualityOptions('Just a question')).toEqual({
      stem: 'Just a question',
      options: [],
    });
  });
});
