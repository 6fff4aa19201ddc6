import { describe, expect, it } from 'vitest';
import { chosenEngines } from './llm-speed';
import { formatRatio, speedRatios, type SpeedFigures } from './llm-speed-ratios';

const row = (
  engine: string,
  threads: number,
  promptTokensPerS: number,
  generationTokensPerS: number,
  firstTokenMs: number,
): SpeedFigures => ({ engine, threads, promptTokensPerS, generationTokensPerS, firstTokenMs });

describe('the llm-speed ratios', () => {
  it('compares engines at the same thread count, first engine over second', () => {
    const rows = [
      row('onnx-native', 1, 300, 60, 4000),
      row('onnx-native', 2, 600, 80, 2000),
      row('onnx-web', 1, 100, 20, 12000),
      row('onnx-web', 2, 150, 40, 8000),
      row('wllama', 1, 20, 5, 60000),
    ];
    const ratios = speedRatios(rows, [
      ['onnx-native', 'onnx-web'],
      ['onnx-web', 'wllama'],
    ]);
    expect(ratios).toEqual([
      {
        faster: 'onnx-native',
        slower: 'onnx-web',
        threads: 1,
        prompt: 3,
        generation: 3,
        firstToken: 3,
      },
      {
        faster: 'onnx-native',
        slower: 'onnx-web',
        threads: 2,
        prompt: 4,
        generation: 2,
        firstToken: 4,
      },
      // wllama has no 2-thread row: no ratio for 2 threads.
      { faster: 'onnx-web', slower: 'wllama', threads: 1, prompt: 5, generation: 4, firstToken: 5 },
    ]);
  });

  it('takes the first row of an engine and gives no number for a zero figure', () => {
    const rows = [
      row('native', 1, 200, 50, 5000),
      row('native', 1, 999, 999, 1), // a second model of the same engine: not used
      row('onnx-web', 1, 100, 0, 10000),
    ];
    const [r] = speedRatios(rows, [['native', 'onnx-web']]);
    expect(r.prompt).toBe(2);
    expect(r.generation).toBeNaN();
    expect(r.firstToken).toBe(2);
    expect(formatRatio(r.generation)).toBe('–');
    expect(formatRatio(r.prompt)).toBe('2.0x');
  });

  it('measures the engines LLM_SPEED_ENGINES names, all by default, and refuses a typo', () => {
    expect(chosenEngines(undefined)).toEqual(['native', 'wllama', 'onnx-native', 'onnx-web']);
    expect(chosenEngines(' onnx-web, wllama ')).toEqual(['wllama', 'onnx-web']);
    expect(() => chosenEngines('onnx')).toThrow(/unknown engine “onnx”/);
  });
});
