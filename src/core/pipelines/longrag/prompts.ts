/**
 * @file LongRAG's prompts in our own words, with the official intent and layout (PIPELINES.md
 * 2.2; the official texts are in QingFei1/LongRAG `src/main.py` and LongBench's
 * `config/dataset2prompt.json`, key `hotpotqa`).
 */

/** Step 6: the mapped paragraphs joined with '', a period, the instruction, the question on its own line. */
export function extractorPrompt(paragraphs: readonly string[], question: string): string {
  return (
    `${paragraphs.join('')}.\n\n` +
    'From the background above, write down the information that is needed to answer the ' +
    `question below.\nQuestion: ${question}\nInformation:`
  );
}

/** Step 7a: the k chunks joined with newlines, then the request for a thinking process. */
export function cotPrompt(chunks: readonly string[], question: string): string {
  return (
    `${chunks.join('\n')}\n\n` +
    'Combine the information above and give your thinking process, step by step, for ' +
    `answering the question below.\nQuestion: ${question}\nThinking process:`
  );
}

/** Step 7b: one chunk as the article, the question, the CoT; the reply is `{"status": "..."}`. */
export function filterPrompt(chunk: string, question: string, cot: string): string {
  return (
    `Article: ${chunk}\n\n` +
    `Question: ${question}\n\n` +
    `Thought process: ${cot}\n\n` +
    'Using the thought process, decide whether the article must be cited to answer the ' +
    'question. Set status to "True" if it must, otherwise to "False". Reply with JSON only, ' +
    'in this form: {"status": "True"}'
  );
}

/**
 * Step 8: LongBench's multi-hop layout: the instruction, the passages, the instruction again, the
 * question and an answer cue. Our passages are numbered so the answer can cite them.
 */
export function generatorPrompt(context: string, question: string): string {
  const instruction =
    'Answer the question based on the given passages. Give only the answer, then the numbers ' +
    'of the passages it comes from in square brackets, like [2]; no other words.';
  return (
    `${instruction}\n\nThe following are given passages.\n${context}\n\n` +
    `${instruction}\n\nQuestion: ${question}\nAnswer:`
  );
}

/** A numbered passage of the generator's context; passages are joined with '' as in the code. */
export function passage(label: number, location: string, text: string): string {
  return `[${label}] (${location})\n${text.trim()}\n`;
}
