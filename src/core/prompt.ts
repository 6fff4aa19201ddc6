/**
 * @file The prompts FragRel hands to a language model, one per task (DESIGN.md section 2,
 * "Prompts"), fitted to the model's context window.
 *
 * - Story question answering: the selected fragments in document order, labelled [1]..[K] with
 *   where they sit, then the question; the model answers briefly and cites labels.
 * - Code completion (RepoCoder's layout): the retrieved windows as comment blocks labelled with
 *   their file and lines, then the current file up to the cursor.
 * - Chat with memory: earlier turns related to the new message (the evidence), the recent
 *   dialog, then the new message.
 *
 * Every builder renders two forms of the same prompt: `messages` for chat models and `text`
 * for base models that only continue text. `style` says which one the engine is sent and is
 * the one measured against the budget.
 *
 * Fitting (Eq. 11 hands over fragments by a word budget; the model counts tokens): the prompt
 * may use `contextLimit - answerTokens` tokens. When it is longer, the lowest-ranked fragments
 * are dropped first; only when that is not enough is text truncated. What was dropped or cut
 * is reported, so the person can see what the model did not read.
 *
 * Pure: no DOM, no engine. The token counter is passed in.
 */

export type PromptTask = 'story-qa' | 'code-completion' | 'chat-memory';

/** What the engine is sent: chat messages, or one plain text to continue. */
export type PromptStyle = 'chat' | 'text';

export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One selected fragment as the prompt needs it. */
export interface PromptFragment {
  /** Index of the fragment in the retrieval run: what a citation of it opens. */
  index: number;
  /** 0 for the best by final score (Eq. 10). The highest ranks are dropped first. */
  rank: number;
  /** Where it sits, for the model and the person: "pg11.txt · CHAPTER IX", "src/io.py:12-31". */
  location: string;
  text: string;
}

export type TokenCounter = (text: string) => number;

/** The engine's limits. */
export interface PromptBudget {
  /** Tokens the model reads and writes in one request. */
  contextLimit: number;
  /** Tokens kept free for the answer. */
  answerTokens: number;
  countTokens: TokenCounter;
  style: PromptStyle;
  /**
   * At most this many tokens of excerpts (story QA): the prompt may then use what the
   * instructions and the question take plus this, when that is less than the window allows. A
   * small model on a CPU reads a few hundred tokens in the time a person waits; the window would
   * hold minutes of reading. Absent: the window is the only limit.
   */
  passageTokens?: number;
}

/** A label the answer can cite: `[label]` stands for fragment `index`. */
export interface PromptSource {
  label: number;
  index: number;
  location: string;
  /** The fragment was cut to fit. */
  truncated: boolean;
}

export interface DroppedFragment {
  index: number;
  rank: number;
  location: string;
}

export interface Truncation {
  part: 'fragment' | 'current-file';
  /** The fragment's index, for part 'fragment'. */
  index?: number;
  keptChars: number;
  originalChars: number;
}

export interface Prompt {
  task: PromptTask;
  style: PromptStyle;
  messages: PromptMessage[];
  text: string;
  /** Labels in the order they appear in the prompt (document order). */
  sources: PromptSource[];
  /** Fragments left out to fit, best first. */
  dropped: DroppedFragment[];
  /** Dialog turns left out to fit (chat), oldest first, as indices into the given history. */
  droppedTurns: number[];
  truncated: Truncation[];
  /** The prompt's size as `countTokens` measures it (with the chat overhead for 'chat'). */
  tokens: number;
  /** What the prompt may use: contextLimit - answerTokens. */
  limit: number;
  /**
   * The excerpts' cap (`PromptBudget.passageTokens`) when it, not the window, decided what was
   * left out: fragments dropped or cut then were dropped to keep the reading short.
   */
  passageCap?: number;
}

export type PromptResult =
  | { ok: true; prompt: Prompt }
  | {
      ok: false;
      /** A sentence a person understands, with what to do. */
      reason: string;
      /** The smallest prompt that could be built, and the limit it missed. */
      tokens: number;
      limit: number;
    };

/**
 * Tokens a chat template adds around each message (role markers, separators), and once for the
 * reply's header. An allowance, not a measurement; templates differ by a few tokens.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const REPLY_OVERHEAD_TOKENS = 3;

/** The smallest passage cap the story prompt honours (`PromptBudget.passageTokens`). */
export const MIN_PASSAGE_TOKENS = 32;

/** What a truncated text ends (or, cut from the front, starts) with. */
export const ELLIPSIS = '…';

// ---------------------------------------------------------------------------------------------
// Measuring and fitting

interface Rendered {
  messages: PromptMessage[];
  text: string;
}

/** The size of a rendered prompt in the style the engine is sent. */
export function promptTokens(rendered: Rendered, style: PromptStyle, count: TokenCounter): number {
  if (style === 'text') return count(rendered.text);
  let total = REPLY_OVERHEAD_TOKENS;
  for (const m of rendered.messages) total += count(m.content) + MESSAGE_OVERHEAD_TOKENS;
  return total;
}

/** The exact text an engine of this style is sent, for "Show the prompt". */
export function promptAsSent(prompt: Pick<Prompt, 'style' | 'messages' | 'text'>): string {
  if (prompt.style === 'text') return prompt.text;
  return prompt.messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}

function promptLimit(budget: PromptBudget): number {
  return Math.max(0, Math.floor(budget.contextLimit - budget.answerTokens));
}

/** The largest m in [0, n] with fits(m), assuming fits is monotone (true, then false); -1 if none. */
function largestFitting(n: number, fits: (m: number) => boolean): number {
  if (fits(n)) return n;
  if (!fits(0)) return -1;
  let lo = 0; // fits
  let hi = n; // does not fit
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The longest cut of `text` that fits: its beginning (`keep: 'start'`) or its end (`'end'`),
 * ended at a word or line boundary where one is near, marked with an ellipsis. '' when not even
 * the ellipsis fits.
 */
export function truncateToFit(
  text: string,
  fits: (cut: string) => boolean,
  keep: 'start' | 'end',
): string {
  const cut = (n: number): string => {
    if (n >= text.length) return text;
    if (n <= 0) return '';
    if (keep === 'start') {
      let end = n;
      const space = text.lastIndexOf(' ', end);
      const newline = text.lastIndexOf('\n', end);
      const boundary = Math.max(space, newline);
      if (boundary > n * 0.8) end = boundary;
      return text.slice(0, end).trimEnd() + ` ${ELLIPSIS}`;
    }
    let start = text.length - n;
    // Code keeps whole lines nearest the cursor; prose whole words.
    const newline = text.indexOf('\n', start);
    if (newline !== -1 && newline < start + n * 0.2) start = newline + 1;
    else {
      const space = text.indexOf(' ', start);
      if (space !== -1 && space < start + n * 0.2) start = space + 1;
    }
    return text.slice(start);
  };
  if (fits(text)) return text;
  let lo = 0; // length that fits ('' is assumed to)
  let hi = text.length; // length that does not
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (fits(cut(mid))) lo = mid;
    else hi = mid;
  }
  return lo === 0 ? '' : cut(lo);
}

interface FragmentFit {
  /** Kept fragments in the given (document) order, text possibly cut. */
  kept: PromptFragment[];
  dropped: DroppedFragment[];
  truncated: Truncation[];
}

/**
 * Keep the best-ranked fragments that fit: the largest m such that the m best fit (drop the
 * lowest-ranked first). With `minKept` 1 and not even the best fitting, cut the best one.
 * Returns null when the prompt does not fit even with `minKept` fragments cut to nothing.
 */
function fitFragments(
  fragments: readonly PromptFragment[],
  fits: (kept: PromptFragment[]) => boolean,
  minKept: 0 | 1,
): FragmentFit | null {
  const byRank = fragments
    .map((f, order) => ({ f, order }))
    .sort((a, b) => a.f.rank - b.f.rank || a.order - b.order);
  const keptOf = (m: number): PromptFragment[] =>
    byRank
      .slice(0, m)
      .sort((a, b) => a.order - b.order)
      .map((x) => x.f);
  const droppedOf = (m: number): DroppedFragment[] =>
    byRank.slice(m).map(({ f }) => ({ index: f.index, rank: f.rank, location: f.location }));

  const m = largestFitting(byRank.length, (k) => fits(keptOf(k)));
  if (m >= minKept && m >= 0) return { kept: keptOf(m), dropped: droppedOf(m), truncated: [] };
  if (minKept === 0 || byRank.length === 0) return null;
  // Not even the best fragment fits whole: keep its beginning.
  const best = byRank[0].f;
  const text = truncateToFit(best.text, (t) => fits([{ ...best, text: t }]), 'start');
  if (text === '') return null;
  return {
    kept: [{ ...best, text }],
    dropped: droppedOf(1),
    truncated: [
      {
        part: 'fragment',
        index: best.index,
        keptChars: text.length,
        originalChars: best.text.length,
      },
    ],
  };
}

function sourcesOf(kept: readonly PromptFragment[], truncated: readonly Truncation[]) {
  const cut = new Set(truncated.filter((t) => t.part === 'fragment').map((t) => t.index));
  return kept.map((f, i) => ({
    label: i + 1,
    index: f.index,
    location: f.location,
    truncated: cut.has(f.index),
  }));
}

function tooLong(what: string, tokens: number, limit: number): PromptResult {
  return {
    ok: false,
    reason:
      `${what} needs about ${tokens.toLocaleString('en')} tokens, but the model can read only ` +
      `${limit.toLocaleString('en')} once the answer's share is set aside. Shorten it, lower the ` +
      `answer length, or pick a model with a larger context window.`,
    tokens,
    limit,
  };
}

// ---------------------------------------------------------------------------------------------
// Story question answering

export interface StoryQaInput {
  question: string;
  /** The selected fragments in document order (Eq. 11). */
  fragments: readonly PromptFragment[];
}

const STORY_SYSTEM =
  'You answer questions about a long text using only the numbered excerpts you are given. ' +
  'Answer briefly and directly. After each statement, cite the excerpts that support it by ' +
  'their numbers in square brackets, for example [2] or [1, 3]. If the excerpts do not say, ' +
  'answer that the excerpts do not tell, rather than guessing.';

function excerptBlock(fragments: readonly PromptFragment[]): string {
  return fragments.map((f, i) => `[${i + 1}] (${f.location})\n${f.text.trim()}`).join('\n\n');
}

export function renderStoryQa(input: StoryQaInput): Rendered {
  const excerpts = excerptBlock(input.fragments);
  const question = input.question.trim();
  return {
    messages: [
      { role: 'system', content: STORY_SYSTEM },
      {
        role: 'user',
        content: `Excerpts, in the order they appear in the text:\n\n${excerpts}\n\nQuestion: ${question}`,
      },
    ],
    text:
      `Below are numbered excerpts from a longer text, in the order they appear in it.\n\n` +
      `${excerpts}\n\n` +
      `Using only these excerpts, answer the question briefly and cite the excerpts by number, ` +
      `like [1].\n\nQuestion: ${question}\nAnswer:`,
  };
}

/** The story QA prompt, fitted: at least the best fragment stays (cut if it must). */
export function storyQaPrompt(input: StoryQaInput, budget: PromptBudget): PromptResult {
  const limit = promptLimit(budget);
  const size = (fragments: readonly PromptFragment[]) =>
    promptTokens(renderStoryQa({ ...input, fragments }), budget.style, budget.countTokens);
  if (input.fragments.length === 0) {
    return {
      ok: false,
      reason: 'No fragments were selected for this question, so there is nothing to answer from.',
      tokens: size([]),
      limit,
    };
  }
  // The excerpts' cap, as a prompt size: what the prompt takes without excerpts, plus the cap
  // (never under MIN_PASSAGE_TOKENS: a cap that leaves no excerpt would leave nothing to answer).
  const capped =
    budget.passageTokens !== undefined
      ? size([]) + Math.max(MIN_PASSAGE_TOKENS, budget.passageTokens)
      : Infinity;
  const fitsWindow = (kept: readonly PromptFragment[]) => size(kept) <= limit;
  const fit =
    capped < limit
      ? fitFragments(input.fragments, (kept) => size(kept) <= capped, 1)
      : fitFragments(input.fragments, fitsWindow, 1);
  if (!fit) return tooLong('The question with the instructions', size([]), limit);
  const cappedBy =
    capped < limit && (fit.dropped.length > 0 || fit.truncated.length > 0)
      ? { passageCap: budget.passageTokens! }
      : {};
  const rendered = renderStoryQa({ ...input, fragments: fit.kept });
  return {
    ok: true,
    prompt: {
      task: 'story-qa',
      style: budget.style,
      ...rendered,
      sources: sourcesOf(fit.kept, fit.truncated),
      dropped: fit.dropped,
      droppedTurns: [],
      truncated: fit.truncated,
      tokens: size(fit.kept),
      limit,
      ...cappedBy,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Code completion (RepoCoder's layout)

export interface CodeCompletionInput {
  /** Retrieved windows in document order; `location` is "path:first-last". */
  fragments: readonly PromptFragment[];
  /** The file being completed. */
  currentFile: { path: string; textBeforeCursor: string };
}

/** Line comment marker by file extension; '#' where unknown. */
export function commentPrefixFor(path: string): string {
  const ext = /\.([A-Za-z0-9+]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  if (
    [
      'js',
      'jsx',
      'mjs',
      'cjs',
      'ts',
      'tsx',
      'mts',
      'cts',
      'java',
      'kt',
      'kts',
      'scala',
      'go',
      'rs',
      'c',
      'h',
      'cc',
      'cpp',
      'cxx',
      'hpp',
      'hh',
      'cs',
      'swift',
      'php',
      'dart',
      'zig',
      'sol',
    ].includes(ext)
  )
    return '//';
  if (['sql', 'lua', 'hs', 'elm', 'ada'].includes(ext)) return '--';
  if (['lisp', 'clj', 'cljs', 'el', 'scm', 'asm'].includes(ext)) return ';';
  if (['m', 'tex', 'erl'].includes(ext)) return '%';
  return '#';
}

function commented(text: string, prefix: string): string {
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => (line ? `${prefix} ${line}` : prefix))
    .join('\n');
}

const CODE_SYSTEM =
  'You complete source code. The user message ends where the cursor is. Reply with only the ' +
  'code that comes next, with no explanation and no Markdown fences. Lines starting with the ' +
  'comment marker at the top quote other files of the repository for reference.';

export function renderCodeCompletion(input: CodeCompletionInput): Rendered {
  const c = commentPrefixFor(input.currentFile.path);
  const rule = `${c} ${'-'.repeat(40)}`;
  const blocks = input.fragments.map(
    (f, i) => `${c} [${i + 1}] from ${f.location}:\n${commented(f.text, c)}\n${rule}`,
  );
  const context = blocks.length
    ? `${c} Code from other parts of the repository that may help:\n${rule}\n${blocks.join('\n')}\n`
    : '';
  const text = `${context}${c} File: ${input.currentFile.path}\n${input.currentFile.textBeforeCursor}`;
  return {
    messages: [
      { role: 'system', content: CODE_SYSTEM },
      { role: 'user', content: text },
    ],
    text,
  };
}

/**
 * The code completion prompt, fitted: windows are dropped from the lowest rank down (all of
 * them if need be); then the current file loses lines from its top, keeping those nearest the
 * cursor.
 */
export function codeCompletionPrompt(
  input: CodeCompletionInput,
  budget: PromptBudget,
): PromptResult {
  const limit = promptLimit(budget);
  const size = (
    fragments: readonly PromptFragment[],
    before = input.currentFile.textBeforeCursor,
  ) =>
    promptTokens(
      renderCodeCompletion({
        fragments,
        currentFile: { ...input.currentFile, textBeforeCursor: before },
      }),
      budget.style,
      budget.countTokens,
    );
  const fit = fitFragments(input.fragments, (kept) => size(kept) <= limit, 0);
  let kept: readonly PromptFragment[] = [];
  let dropped: DroppedFragment[];
  let before = input.currentFile.textBeforeCursor;
  const truncated: Truncation[] = [];
  if (fit) {
    kept = fit.kept;
    dropped = fit.dropped;
  } else {
    // Not even the file alone fits: keep the lines nearest the cursor.
    before = truncateToFit(before, (t) => size([], t) <= limit, 'end');
    if (before === '') return tooLong('The current file header', size([], ''), limit);
    truncated.push({
      part: 'current-file',
      keptChars: before.length,
      originalChars: input.currentFile.textBeforeCursor.length,
    });
    dropped = input.fragments.map(droppedOf).sort(byRank);
  }
  const rendered = renderCodeCompletion({
    fragments: kept,
    currentFile: { ...input.currentFile, textBeforeCursor: before },
  });
  return {
    ok: true,
    prompt: {
      task: 'code-completion',
      style: budget.style,
      ...rendered,
      sources: sourcesOf(kept, []),
      dropped,
      droppedTurns: [],
      truncated,
      tokens: size(kept, before),
      limit,
    },
  };
}

function droppedOf(f: PromptFragment): DroppedFragment {
  return { index: f.index, rank: f.rank, location: f.location };
}
function byRank(a: DroppedFragment, b: DroppedFragment): number {
  return a.rank - b.rank;
}

// ---------------------------------------------------------------------------------------------
// Chat with memory

export interface ChatMemoryInput {
  /** Earlier turns related to the new message, in chronological order; location e.g. "turn 4". */
  evidence: readonly PromptFragment[];
  /** The recent dialog, oldest first (user and assistant turns). */
  history: readonly PromptMessage[];
  /** The new user message. */
  message: string;
}

const CHAT_SYSTEM =
  'You are a helpful assistant in a long conversation. Earlier parts of the conversation that ' +
  'relate to the new message are quoted below, numbered and oldest first. Use them when they ' +
  'help, cite them by number like [2], and do not make up earlier facts that are not there.';

const SPEAKER: Record<PromptMessage['role'], string> = {
  system: 'System',
  user: 'User',
  assistant: 'Assistant',
};

export function renderChatMemory(input: ChatMemoryInput): Rendered {
  const evidence = excerptBlock(input.evidence);
  const system = input.evidence.length
    ? `${CHAT_SYSTEM}\n\nRelated earlier conversation:\n\n${evidence}`
    : CHAT_SYSTEM;
  const message = input.message.trim();
  const dialog = [...input.history, { role: 'user' as const, content: message }];
  const memory = input.evidence.length
    ? `Earlier parts of this conversation that relate to the new message:\n\n${evidence}\n\n`
    : '';
  return {
    messages: [{ role: 'system', content: system }, ...dialog],
    text:
      `${memory}Recent conversation:\n` +
      dialog.map((m) => `${SPEAKER[m.role]}: ${m.content.trim()}`).join('\n') +
      `\nAssistant:`,
  };
}

/**
 * The chat prompt, fitted: evidence is dropped from the lowest rank down, then dialog turns from
 * the oldest. The new message is never cut: when it alone does not fit, the result says so.
 */
export function chatMemoryPrompt(input: ChatMemoryInput, budget: PromptBudget): PromptResult {
  const limit = promptLimit(budget);
  const size = (evidence: readonly PromptFragment[], history: readonly PromptMessage[]) =>
    promptTokens(
      renderChatMemory({ ...input, evidence, history }),
      budget.style,
      budget.countTokens,
    );
  let history = [...input.history];
  let droppedTurns: number[] = [];
  let fit = fitFragments(input.evidence, (kept) => size(kept, history) <= limit, 0);
  if (!fit) {
    // Without any evidence: keep the most recent turns that fit.
    const n = input.history.length;
    const keep = largestFitting(n, (k) => size([], input.history.slice(n - k)) <= limit);
    if (keep < 0) return tooLong('The new message', size([], []), limit);
    history = input.history.slice(n - keep);
    droppedTurns = Array.from({ length: n - keep }, (_, i) => i);
    fit = { kept: [], dropped: [...input.evidence].map(droppedOf).sort(byRank), truncated: [] };
  }
  const rendered = renderChatMemory({ ...input, evidence: fit.kept, history });
  return {
    ok: true,
    prompt: {
      task: 'chat-memory',
      style: budget.style,
      ...rendered,
      sources: sourcesOf(fit.kept, []),
      dropped: fit.dropped,
      droppedTurns,
      truncated: [],
      tokens: size(fit.kept, history),
      limit,
    },
  };
}
