import { describe, expect, it } from 'vitest';
import { sessionTuning } from './onnx';

describe("the speed check page's ONNX session options", () => {
  it('reads the options named in the URL and nothing else', () => {
    expect(sessionTuning(new URLSearchParams('engine=onnx&threads=2'))).toBeUndefined();
    expect(sessionTuning(new URLSearchParams('opt=extended&arena=1&mempattern=0'))).toEqual({
      graphOptimizationLevel: 'extended',
      enableCpuMemArena: true,
      enableMemPattern: false,
    });
    expect(sessionTuning(new URLSearchParams('arena=0'))).toEqual({ enableCpuMemArena: false });
  });

  it('ignores an unknown optimisation level', () => {
    expect(sessionTuning(new URLSearchParams('opt=fast'))).toBeUndefined();
  });

  it('reads the piece size a prompt is read in, 0 included, and ignores a malformed one', () => {
    expect(sessionTuning(new URLSearchParams('chunk=128'))).toEqual({ prefillChunk: 128 });
    expect(sessionTuning(new URLSearchParams('chunk=0'))).toEqual({ prefillChunk: 0 });
    expect(sessionTuning(new URLSearchParams('chunk=-5'))).toBeUndefined();
    expect(sessionTuning(new URLSearchParams('chunk=big'))).toBeUndefined();
  });
});
