/**
 * @file Which graph nodes cover a window, and with how much text (the k, l and len of Eq. 8).
 *
 * Covering, precisely: every character of a file has one OWNER, the deepest node whose span
 * contains it, among the file's root, definitions and call sites (for a file without syntax: the
 * file node). Owners partition the file, so they never overlap. The covering nodes of a window are
 * the owners of its characters, and len_k is the number of NON-WHITESPACE characters of the window
 * that k owns (indentation and blank lines weigh nothing). So a definition that lies wholly
 * inside the window covers its own text less that of its nested definitions and calls; the window's
 * file-level remainder (imports, top-level statements) goes to the file's syntax root; and a window
 * inside a long function that it does not contain wholly is covered by that function (and the
 * calls and inner definitions it holds), not by the file. A window of only whitespace has no
 * covering nodes and so no relations.
 */
import type { CodeGraph } from './graph';
import type { CodeWindow } from './layout';

export interface WindowCover {
  windows: number;
  /** Covering nodes of window i: node[ptr[i] .. ptr[i+1]) with their lengths len_k. */
  windowPtr: Uint32Array;
  windowNode: Uint32Array;
  windowLength: Uint32Array;
  /** L_i = sum_k len_k (non-whitespace characters of window i). */
  total: Float64Array;
  /** The reverse: windows covered by node v, windowOf[nodePtr[v] .. nodePtr[v+1]), same lengths. */
  nodePtr: Uint32Array;
  nodeWindow: Uint32Array;
  nodeLength: Uint32Array;
}

function isWhitespace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0xfeff;
}

/** Owner segments of one file: [from[s], to[s]) owned by owner[s], in order, tiling the file. */
function ownerSegments(
  graph: CodeGraph,
  file: number,
  nodeIds: number[],
): { from: number[]; to: number[]; owner: number[] } {
  const nodes = graph.nodes;
  const length = graph.files[file].length;
  const from: number[] = [];
  const to: number[] = [];
  const owner: number[] = [];
  const emit = (a: number, b: number, o: number) => {
    if (b <= a) return;
    from.push(a);
    to.push(b);
    owner.push(o);
  };
  // Outer before inner: by start, then longer first, then parents (lower ids) first.
  nodeIds.sort((a, b) => nodes[a].start - nodes[b].start || nodes[b].end - nodes[a].end || a - b);
  const stack: number[] = [];
  const ends: number[] = [];
  let pos = 0;
  for (const id of nodeIds) {
    const start = Math.max(0, Math.min(nodes[id].start, length));
    while (stack.length > 0 && ends[ends.length - 1] <= start) {
      emit(pos, ends[ends.length - 1], stack[stack.length - 1]);
      pos = Math.max(pos, ends[ends.length - 1]);
      stack.pop();
      ends.pop();
    }
    if (stack.length > 0) emit(pos, start, stack[stack.length - 1]);
    pos = Math.max(pos, start);
    // A span that crossed its container's end is clipped to it (spans normally nest).
    const end = Math.min(nodes[id].end, length, ends.length > 0 ? ends[ends.length - 1] : length);
    if (end > start) {
      stack.push(id);
      ends.push(end);
    }
  }
  while (stack.length > 0) {
    emit(pos, ends[ends.length - 1], stack[stack.length - 1]);
    pos = Math.max(pos, ends[ends.length - 1]);
    stack.pop();
    ends.pop();
  }
  return { from, to, owner };
}

/**
 * The covering nodes of each window. `texts[f]` must be the text the graph was built from for
 * file f, and windows must be in file order with starts increasing within a file (as
 * repositoryWindows makes them).
 */
export function coverWindows(
  graph: CodeGraph,
  texts: readonly string[],
  windows: readonly CodeWindow[],
): WindowCover {
  const n = windows.length;
  if (texts.length !== graph.files.length) {
    throw new Error(
      `FragRel: ${texts.length} file texts for a code graph of ${graph.files.length} files.`,
    );
  }
  // Nodes that can own text, per file.
  const fileNodes: number[][] = graph.files.map(() => []);
  graph.nodes.forEach((node, id) => {
    if (node.file < 0) return;
    const hasSyntax = graph.files[node.file].root >= 0;
    if (hasSyntax ? node.kind !== 'file' : node.kind === 'file') fileNodes[node.file].push(id);
  });

  const windowPtr = new Uint32Array(n + 1);
  const winNode: number[] = [];
  const winLen: number[] = [];
  const total = new Float64Array(n);
  const slot = new Int32Array(graph.nodes.length).fill(-1);

  let i = 0;
  while (i < n) {
    const f = windows[i].file;
    const text = texts[f];
    if (text.length !== graph.files[f].length) {
      throw new Error(
        `FragRel: the text of “${graph.files[f].path}” is not the one its graph was built from.`,
      );
    }
    const prefix = new Uint32Array(text.length + 1);
    for (let c = 0; c < text.length; c++) {
      prefix[c + 1] = prefix[c] + (isWhitespace(text.charCodeAt(c)) ? 0 : 1);
    }
    const seg = ownerSegments(graph, f, fileNodes[f]);
    let first = 0;
    for (; i < n && windows[i].file === f; i++) {
      const { start, end } = windows[i];
      while (first < seg.to.length && seg.to[first] <= start) first++;
      const rowStart = winNode.length;
      for (let s = first; s < seg.from.length && seg.from[s] < end; s++) {
        const a = Math.max(start, seg.from[s]);
        const b = Math.min(end, seg.to[s]);
        const len = prefix[b] - prefix[a];
        if (len === 0) continue;
        const o = seg.owner[s];
        if (slot[o] >= rowStart) {
          winLen[slot[o]] += len;
        } else {
          slot[o] = winNode.length;
          winNode.push(o);
          winLen.push(len);
        }
        total[i] += len;
      }
      windowPtr[i + 1] = winNode.length;
    }
  }

  // Reverse index: node -> windows.
  const nodes = graph.nodes.length;
  const nodePtr = new Uint32Array(nodes + 1);
  for (const v of winNode) nodePtr[v + 1]++;
  for (let v = 0; v < nodes; v++) nodePtr[v + 1] += nodePtr[v];
  const fill = nodePtr.slice(0, nodes);
  const nodeWindow = new Uint32Array(winNode.length);
  const nodeLength = new Uint32Array(winNode.length);
  for (let w = 0; w < n; w++) {
    for (let p = windowPtr[w]; p < windowPtr[w + 1]; p++) {
      const q = fill[winNode[p]]++;
      nodeWindow[q] = w;
      nodeLength[q] = winLen[p];
    }
  }
  return {
    windows: n,
    windowPtr,
    windowNode: Uint32Array.from(winNode),
    windowLength: Uint32Array.from(winLen),
    total,
    nodePtr,
    nodeWindow,
    nodeLength,
  };
}
