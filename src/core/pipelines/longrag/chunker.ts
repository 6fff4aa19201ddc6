/**
 * @file LongRAG's chunker (`split_sentences` in QingFei1/LongRAG `src/gen_index.py`, commit
 * 6bb0406), after PIPELINES.md 2.3: sentence-aligned chunks of about `chunkSize` words with an
 * overlap of `overlap` sentences, and a short tail merged into the chunk before it.
 *
 * Two modes. `compat` reproduces the official output, bugs included (for golden tests and
 * comparison with the paper). Product mode (`compat: false`) fixes the one bug that loses text,
 * the dropped text after the last delimiter, and splits a delimiter-free stretch longer than
 * `chunkSize` words into word windows so no chunk overruns an embedder's 512 tokens. Everything
 * else that defines the method's chunk sizes is kept in both modes: the word counter, the
 * delimiter set (commas and decimal points included, so "sentences" are clauses), the
 * `chunkSize - overlapLen` threshold, the strict `start > overlap` test and the '' join.
 */

export interface ChunkerOptions {
  /** Words per chunk (LongBench's word count); 200 in the paper. */
  chunkSize: number;
  /** A final chunk with fewer sentences is appended to the previous one. */
  minSentence: number;
  /** Sentences repeated from the end of the previous chunk. */
  overlap: number;
  /** Reproduce the official chunker exactly, including the dropped tail. */
  compat: boolean;
  /**
   * Product mode only: cut a sentence longer than `chunkSize` words into word windows (kept apart
   * from the tail fix, whose documented outputs it would otherwise change).
   */
  splitLongStretches: boolean;
}

export const defaultChunkerOptions: ChunkerOptions = {
  chunkSize: 200,
  minSentence: 2,
  overlap: 2,
  compat: false,
  splitLongStretches: true,
};

export interface Chunk {
  text: string;
  /** Indices of the sentences it joins, in order (see `sentencesOf`). */
  sentences: number[];
}

const CJK = /^[\u4e00-\u9fa5]$/u;

/**
 * LongBench's `get_word_list` count: lowercase, split on non-word characters (Unicode-aware, as
 * Python's `\W`), each CJK character a word of its own. "it's" and "1,000" are two words each.
 */
export function wordCount(text: string): number {
  let n = 0;
  for (const piece of text.toLowerCase().split(/[^\p{L}\p{N}_]/u)) {
    if (!piece) continue;
    let run = 0;
    for (const ch of piece) {
      if (CJK.test(ch)) {
        if (run) n++;
        run = 0;
        n++;
      } else run++;
    }
    if (run) n++;
  }
  return n;
}

const DELIMITERS = /([!。，！?？,.;])/u;

/**
 * The official sentence split: split on the delimiters and glue each piece to the delimiter after
 * it. Compat mode drops the text after the last delimiter (an odd split list leaves it
 * unpaired); product mode keeps it as a last sentence (or, when blank, on the last sentence).
 * Null when there is no delimiter at all.
 */
export function sentencesOf(text: string, compat: boolean): string[] | null {
  const parts = text.split(DELIMITERS);
  if (parts.length === 1) return null;
  const sentences: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) sentences.push(parts[i] + parts[i + 1]);
  const tail = parts.length % 2 === 1 ? parts[parts.length - 1] : '';
  if (!compat && tail) {
    if (tail.trim()) sentences.push(tail);
    else sentences[sentences.length - 1] += tail;
  }
  return sentences;
}

/** Product mode: a sentence over `size` words becomes word windows of `size` words. */
function splitLongSentence(sentence: string, size: number): string[] {
  if (wordCount(sentence) <= size) return [sentence];
  const tokens = sentence.match(/\S+\s*|\s+/g) ?? [sentence];
  const out: string[] = [];
  let current = '';
  for (const t of tokens) {
    if (current && wordCount(current + t) > size) {
      out.push(current);
      current = '';
    }
    current += t;
  }
  if (current) out.push(current);
  return out;
}

export function chunkText(text: string, options: Partial<ChunkerOptions> = {}): Chunk[] {
  const { chunkSize, minSentence, overlap, compat } = { ...defaultChunkerOptions, ...options };
  if (compat && !sentencesOf(text, compat)) return [{ text, sentences: [0] }];
  const sentences = chunkSentences(text, options);

  const chunks: Chunk[] = [];
  let temp = '';
  let overlapLen = 0;
  let start = 0;
  const last = sentences.length - 1;
  for (let i = 0; i <= last; i++) {
    temp += sentences[i];
    if (wordCount(temp) < chunkSize - overlapLen && i !== last) continue;
    // The overlap is skipped when `overlap` or fewer sentences precede the chunk (strict >).
    if (chunks.length && start > overlap) start -= overlap;
    const ids = range(start, i + 1);
    const chunk: Chunk = { text: ids.map((k) => sentences[k]).join(''), sentences: ids };
    if (!chunks.length) chunks.push(chunk);
    else if (i === last && i - start + 1 < minSentence) {
      const prev = chunks[chunks.length - 1];
      prev.text += chunk.text;
      prev.sentences.push(...chunk.sentences);
    } else chunks.push(chunk);
    temp = '';
    start = i + 1;
    if (i + 1 > overlap) overlapLen = wordCount(sentences.slice(i + 1 - overlap, i + 1).join(''));
  }
  return chunks;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/**
 * The text the chunks cover with the overlaps removed: each chunk contributes only the sentences
 * after the last one already emitted. In product mode this is the input (a property test holds).
 */
export function joinWithoutOverlap(chunks: readonly Chunk[], sentences: readonly string[]): string {
  let upTo = -1;
  let out = '';
  for (const c of chunks) {
    for (const s of c.sentences) {
      if (s <= upTo) continue;
      out += sentences[s];
      upTo = s;
    }
  }
  return out;
}

/** The sentences `chunkText` used, for `joinWithoutOverlap`. */
export function chunkSentences(text: string, options: Partial<ChunkerOptions> = {}): string[] {
  const { chunkSize, compat, splitLongStretches } = { ...defaultChunkerOptions, ...options };
  const sentences = sentencesOf(text, compat) ?? [text];
  if (compat || !splitLongStretches) return sentences;
  return sentences.flatMap((s) => splitLongSentence(s, chunkSize));
}
