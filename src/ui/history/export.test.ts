import { describe, expect, it } from 'vitest';
import type { QuestionRecord } from '../../store';
import { historyToJson, historyToMarkdown, searchHistory } from './export';

const records: QuestionRecord[] = [
  {
    id: 'q2',
    question: 'Who is the Cheshire Cat?',
    docIds: ['a'],
    date: Date.UTC(2026, 10, 24, 7, 0),
    selected: [{ docId: 'a', ordinal: 30 }],
    answer: 'A cat that **grins** [1].',
    citations: [{ label: 1, docId: 'a', ordinal: 30, location: 'pg11.txt · fragment 31' }],
    settings: { alpha: 0.5, relations: ['context'], budget: 2000 },
    engine: 'OpenAI-compatible · test-model',
  },
  {
    id: 'q1',
    question: 'Où est la Reine ?',
    docIds: ['a'],
    date: Date.UTC(2026, 10, 24, 6, 0),
    selected: [],
  },
];

describe('question history export', () => {
  it('writes Markdown with each question, its answer, sources and settings', () => {
    const md = historyToMarkdown(records);
    expect(md).toContain(
      '## Who is the Cheshire Cat?\n\n*Asked 2026-11-24T07:00:00.000Z · answered by OpenAI-compatible · test-model*',
    );
    expect(md).toContain('A cat that **grins** [1].\n\nSources:\n\n- [1] pg11.txt · fragment 31');
    expect(md).toContain('Settings: alpha 0.5, relations context, budget 2000');
    expect(md).toContain(
      '## Où est la Reine ?\n\n*Asked 2026-11-24T06:00:00.000Z*\n\n_No answer was written._',
    );
  });

  it('writes JSON that reads back to the same records', () => {
    const parsed = JSON.parse(historyToJson(records));
    expect(parsed.format).toBe('fragrel-lens-history');
    expect(parsed.questions).toEqual(records);
  });

  it('searches questions and answers, ignoring case and accents', () => {
    expect(searchHistory(records, 'GRINS').map((r) => r.id)).toEqual(['q2']);
    expect(searchHistory(records, 'ou est').map((r) => r.id)).toEqual(['q1']);
    expect(searchHistory(records, '  ')).toHaveLength(2);
    expect(searchHistory(records, 'walrus')).toEqual([]);
  });
});
