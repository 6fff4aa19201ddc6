import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../../test/glove';
import { parseLevalJsonl } from '../eval/datasets/leval';
import { labelledQuestions, matchRecord, recordOverlap } from './labels';

const FILE = sharedDatasetPath('leval', 'quality.jsonl');

describe.skipIf(!existsSync(FILE))('tuning on labels from an L-Eval file', () => {
  const parsed = parseLevalJsonl(existsSync(FILE) ? readFileSync(FILE, 'utf8') : '', 'quality');
  if (!parsed.ok) throw new Error(parsed.error);
  const records = parsed.value;

  it('finds the record of a document even re-wrapped, and none for another text', () => {
    const rewrapped = records[3].text.replace(/ /g, '\n').replace(/\n\n/g, '\r\n\r\n');
    expect(matchRecord(rewrapped, records)).toBe(records[3]);
    expect(recordOverlap(records[3].text, records[4].text)).toBeLessThan(0.1);
    expect(
      matchRecord('A different story about a lighthouse keeper. '.repeat(50), records),
    ).toBeNull();
  });

  it('locates the gold of the record’s questions in the document’s own text', () => {
    const text = records[0].text;
    const { questions, unlocated } = labelledQuestions(text, records[0]);
    expect(questions.length + unlocated).toBe(records[0].questions.length);
    expect(questions.length).toBeGreaterThan(0);
    for (const q of questions) {
      expect(q.query.length).toBeGreaterThan(0);
      expect(q.query).not.toMatch(/\(A\)/); // the stem, without its options
      expect(q.gold[0].end).toBeGreaterThan(q.gold[0].start);
      expect(q.gold[0].end).toBeLessThanOrEqual(text.length);
    }
  });
});
