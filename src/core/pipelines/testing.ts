/**
 * @file A scripted fake LLM and a small library for pipeline tests (PIPELINES.md 6.3).
 *
 * The fake answers each call from a script keyed by the call's step tag and its index among the
 * calls with that tag; when the script has no entry, it routes on phrases of the prompt; then
 * the fallback. It counts one token per whitespace-separated word, so budgets are exact. Time is
 * logical: every call lasts `ticks` turns of the microtask queue and the clock advances one unit
 * per turn, so overlaps (concurrency) and orders are deterministic. It records every call.
 */
import type { PromptBudget, PromptMessage, PromptResult } from '../prompt';
import type { TextKind } from '../types';
import type {
  ChatError,
  ChatOptions,
  ChatResult,
  PipelineLibrary,
  PipelineLlm,
  TraceClock,
} from './types';

export interface FakeCall {
  tag: string;
  tagIndex: number;
  messages: readonly PromptMessage[];
  /** All message contents joined by newlines. */
  prompt: string;
  maxTokens: number;
  temperature?: number;
  start: number;
  end?: number;
  aborted: boolean;
}

export type FakeReply =
  string | { error: ChatError } | ((call: FakeCall) => string | { error: ChatError });

export interface FakeLlmOptions {
  /** Replies by tag: one for every call, or a list indexed by the call's index within the tag. */
  script?: Record<string, FakeReply | FakeReply[]>;
  /** Fallback routing: the first route whose phrase the prompt contains answers. */
  routes?: Array<{ when: string | RegExp; reply: FakeReply }>;
  fallback?: FakeReply;
  contextLimit?: number;
  concurrency?: number;
  /** Logical duration of a call (turns of the microtask queue). */
  ticks?: number | ((call: FakeCall) => number);
  label?: string;
}

export type FakeLlm = PipelineLlm & {
  calls: FakeCall[];
  /** The most calls that were ever in flight at once. */
  readonly maxConcurrent: number;
  clock: TraceClock;
};

/** One token per whitespace-separated word. */
export function countWordsAsTokens(text: string): number {
  const t = text.trim();
  return t ? t.split(/\s+/).length : 0;
}

export function fakeLlm(options: FakeLlmOptions = {}): FakeLlm {
  let now = 0;
  let inFlight = 0;
  let maxConcurrent = 0;
  const calls: FakeCall[] = [];
  const perTag = new Map<string, number>();
  const contextLimit = options.contextLimit ?? 4096;

  const pick = (call: FakeCall): FakeReply | undefined => {
    const scripted = options.script?.[call.tag];
    if (Array.isArray(scripted)) {
      if (call.tagIndex < scripted.length) return scripted[call.tagIndex];
    } else if (scripted !== undefined) return scripted;
    for (const r of options.routes ?? []) {
      const hit =
        typeof r.when === 'string' ? call.prompt.includes(r.when) : r.when.test(call.prompt);
      if (hit) return r.reply;
    }
    return options.fallback;
  };

  const llm: FakeLlm = {
    label: options.label ?? 'fake LLM',
    contextLimit,
    promptStyle: 'chat',
    exactTokenCounts: true,
    concurrency: options.concurrency ?? 1,
    calls,
    get maxConcurrent() {
      return maxConcurrent;
    },
    clock: () => now,
    countTokens: (text) => Promise.resolve(countWordsAsTokens(text)),
    fitPrompt: (build: (b: PromptBudget) => PromptResult, answerTokens: number) =>
      Promise.resolve(
        build({ contextLimit, answerTokens, style: 'chat', countTokens: countWordsAsTokens }),
      ),
    async chat(messages: readonly PromptMessage[], opts: ChatOptions): Promise<ChatResult> {
      const tagIndex = perTag.get(opts.tag) ?? 0;
      perTag.set(opts.tag, tagIndex + 1);
      const call: FakeCall = {
        tag: opts.tag,
        tagIndex,
        messages,
        prompt: messages.map((m) => m.content).join('\n'),
        maxTokens: opts.maxTokens,
        temperature: opts.temperature,
        start: now,
        aborted: false,
      };
      calls.push(call);
      inFlight++;
      maxConcurrent = Math.max(maxConcurrent, inFlight);
      const tokensIn = countWordsAsTokens(call.prompt);
      const ticks =
        typeof options.ticks === 'function' ? options.ticks(call) : (options.ticks ?? 3);
      try {
        for (let i = 0; i < ticks; i++) {
          if (opts.signal.aborted) break;
          await Promise.resolve();
          now++;
        }
        if (opts.signal.aborted) {
          call.aborted = true;
          return { ok: false, text: '', error: { code: 'aborted', message: 'Stopped.' }, tokensIn };
        }
        const scripted = pick(call);
        const reply = typeof scripted === 'function' ? scripted(call) : scripted;
        if (reply === undefined)
          throw new Error(`fakeLlm: no reply scripted for ${opts.tag} #${tagIndex}`);
        if (typeof reply !== 'string') return { ok: false, text: '', error: reply.error, tokensIn };
        // Like a real engine, the reply stops at the output budget.
        const words = reply.split(/(\s+)/);
        const kept: string[] = [];
        let count = 0;
        for (const w of words) {
          if (w.trim() && ++count > opts.maxTokens) break;
          kept.push(w);
        }
        const text = kept.join('');
        opts.onToken?.(text);
        return {
          ok: true,
          text,
          finish: count > opts.maxTokens ? 'length' : 'stop',
          tokensIn,
          tokensOut: countWordsAsTokens(text),
        };
      } finally {
        call.end = now;
        inFlight--;
      }
    },
  };
  return llm;
}

/** True when calls a and b were in flight at the same time. */
export function overlapped(a: FakeCall, b: FakeCall): boolean {
  return a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity);
}

/**
 * A library from plain texts: each text one document, split into fragments at blank lines
 * (paragraphs), with independent scores from `score` (by default the count of question words).
 */
export function libraryOf(
  docs: Array<{ name: string; text: string; kind?: TextKind }>,
  question: string,
  score?: (fragmentText: string) => number,
): PipelineLibrary {
  const qWords = new Set(question.toLowerCase().match(/\p{L}+/gu) ?? []);
  const scoreOf =
    score ??
    ((t: string) => (t.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => qWords.has(w)).length);
  const library: PipelineLibrary = {
    documents: [],
    fragments: [],
    independent: new Float64Array(),
    scorer: 'word overlap (test)',
  };
  const scores: number[] = [];
  docs.forEach((d, di) => {
    const docId = `doc${di}`;
    library.documents.push({ docId, name: d.name, kind: d.kind ?? 'prose', text: d.text });
    const re = /[^\n]+(?:\n(?!\n)[^\n]*)*/g;
    let m: RegExpExecArray | null;
    let ordinal = 0;
    while ((m = re.exec(d.text))) {
      if (!m[0].trim()) continue;
      library.fragments.push({
        index: library.fragments.length,
        docId,
        ordinal: ordinal++,
        start: m.index,
        end: m.index + m[0].length,
      });
      scores.push(scoreOf(m[0]));
    }
  });
  library.independent = Float64Array.from(scores);
  return library;
}

/** A signal the test controls (core has no AbortController). */
export function testSignal(): { signal: import('../abort').AbortSignalLike; abort(): void } {
  const listeners: Array<() => void> = [];
  let aborted = false;
  return {
    signal: {
      get aborted() {
        return aborted;
      },
      addEventListener: (_t, l) => void listeners.push(l),
      removeEventListener: (_t, l) => {
        const i = listeners.indexOf(l);
        if (i >= 0) listeners.splice(i, 1);
      },
    },
    abort() {
      if (aborted) return;
      aborted = true;
      for (const l of listeners.splice(0)) l();
    },
  };
}
