import { describe, expect, it } from 'vitest';
import { opShares, type OrtProfileEvent } from './onnx-op-profile';

const node = (op: string, dur: number, ...shapes: number[][]): OrtProfileEvent => ({
  cat: 'Node',
  name: `${op}_1_kernel_time`,
  dur,
  args: { op_name: op, input_type_shape: shapes.map((s) => ({ float: s })) },
});

describe("ONNX Runtime's profile grouped by what the operators do", () => {
  it('tells weight products from attention and leaves out session events', () => {
    const events: OrtProfileEvent[] = [
      node('MatMul', 6000, [1, 100, 576], [576, 1536]), // a weight: linear
      node('Gemm', 1000, [1, 576], [49152, 576]), // the output head: linear
      node('FusedMatMul', 1500, [1, 3, 300, 64], [1, 3, 64, 100]), // scores: attention
      node('Softmax', 500, [1, 9, 100, 100]),
      node('Add', 400, [1, 9, 100, 100], [1, 1, 100, 100]), // the mask: on heads
      node('Add', 600, [1, 100, 576], [1, 100, 576]), // the residual
      { cat: 'Session', name: 'model_run', dur: 99999 },
      { cat: 'Node', name: 'MatMul_2_fence_before', dur: 99999, args: { op_name: 'MatMul' } },
    ];
    const shares = opShares(events);
    expect(shares.map((s) => [s.group, s.ms])).toEqual([
      ['linear', 7],
      ['attention', 2],
      ['Add', 0.6],
      ['Add on heads', 0.4],
    ]);
    expect(shares[0].share).toBeCloseTo(0.7);
    expect(shares.reduce((t, s) => t + s.share, 0)).toBeCloseTo(1);
  });
});
