import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { AnswerRunSpec } from '../../core/eval/answer-resume';
import type { StoredAnswer } from '../../store/eval-runs';
import type { EvalRunRecord } from '../../store/schema';
import {
  ANSWER_CSV_HEADER,
  answerCsv,
  answerRunJson,
  type AnswerRunSettings,
} from './answer-export';

const spec: AnswerRunSpec = {
  kind: 'answers',
  pipelines: ['fragrel', 'qrmem'],
  questions: ['q1'],
  options: { fragmentWords: 500, budgetWords: 2000, alpha: 0.5, wRel: 0.3 },
};
const settings: AnswerRunSettings = {
  engine: {
    kind: 'openai',
    model: 'gpt-4o-mini',
    baseUrl: 'https://api.example/v1',
    contextLimit: 8192,
  },
  pipelineSettings: { qrmem: { questions: 0 } },
};
const answers: StoredAnswer[] = [
  {
    pipeline: 'fragrel',
    question: 'q1',
    status: 'done',
    // Model output that looks like a formula, with a comma and a line break.
    answer: '=HYPERLINK("x"), then\nmore',
    scores: { f1: 0.5, em: 0, contain: 1, letter: null },
    calls: 1,
    tokensIn: 900,
    tokensOut: 12,
    computedAt: Date.UTC(2026, 0, 2),
  },
  {
    pipeline: 'qrmem',
    question: 'q1',
    status: 'error',
    answer: '',
    scores: null,
    calls: 3,
    tokensIn: 50,
    tokensOut: 0,
    error: 'Server error',
    computedAt: Date.UTC(2026, 0, 3),
  },
];

describe('answer run exports', () => {
  it('writes one CSV row per answer with its settings; formulas are not left to run', () => {
    const rows = Papa.parse<string[]>(answerCsv(spec, settings, answers).trim()).data;
    expect(rows[0]).toEqual([...ANSWER_CSV_HEADER]);
    expect(rows).toHaveLength(3);
    const first = Object.fromEntries(ANSWER_CSV_HEADER.map((h, k) => [h, rows[1][k]]));
    expect(first).toMatchObject({
      pipeline: 'fragrel',
      f1: '0.5',
      letter: '',
      answer: '\'=HYPERLINK("x"), then\nmore',
      engine: 'openai',
      model: 'gpt-4o-mini',
      fragment_words: '500',
      budget_words: '2000',
      alpha: '0.5',
      w_rel: '0.3',
      computed_at: '2026-01-02T00:00:00.000Z',
    });
    const second = Object.fromEntries(ANSWER_CSV_HEADER.map((h, k) => [h, rows[2][k]]));
    expect(second).toMatchObject({ status: 'error', f1: '', error: 'Server error', calls: '3' });
  });

  it('writes JSON with the run, its settings and every answer', () => {
    const run: EvalRunRecord = {
      id: 'r',
      kind: 'answers',
      createdAt: Date.UTC(2026, 0, 1),
      updatedAt: 0,
      status: 'done',
      fileName: 'quality.jsonl',
      files: [],
      spec,
      settings,
    };
    const json = JSON.parse(answerRunJson(run, 'L-Eval JSONL', [], answers));
    expect(json).toMatchObject({
      kind: 'fragrel-lens answer evaluation run',
      file: 'quality.jsonl',
      format: 'L-Eval JSONL',
      createdAt: '2026-01-01T00:00:00.000Z',
      spec,
      settings,
    });
    expect(json.answers).toEqual(answers);
  });
});
