import { describe, expect, it } from 'vitest';
import { firstAnswerEngines } from './first-answer';

describe('the first-answer bench engines', () => {
  it('runs the ONNX engine (the one-click one) by default, the engines named otherwise, and refuses a typo', () => {
    expect(firstAnswerEngines(undefined)).toEqual(['onnx']);
    expect(firstAnswerEngines('wllama, onnx')).toEqual(['wllama', 'onnx']);
    expect(firstAnswerEngines('onnx')).toEqual(['onnx']);
    expect(() => firstAnswerEngines('webllm')).toThrow(/unknown engine “webllm”/);
  });
});
