/**
 * @file SEGMENT+'s prompts in our own words, with the intent of the paper's App. C (note and merge
 * prompts; the filter prompt is not published) and LongBench's answer layout.
 */
export function notePrompt(segment: string, question: string): string {
  return (
    `Read this part of a long document and take a note for the question below.\n\n` +
    `Document part:\n${segment}\n\nQuestion: ${question}\n\n` +
    'Write a JSON object with exactly two string keys:\n' +
    '- "Evidence": exact quotes of the key sentences of this part that help answer the question, ' +
    'including partial facts that may only be useful together with other parts (for example ' +
    'every person, place or date the question could need). Quote, do not paraphrase. Leave it ' +
    'empty if nothing here helps.\n' +
    '- "Reasoning": your analysis of the question and its sub-questions from this part: answers, ' +
    'summaries or interpretations.\n' +
    'Reply with the JSON object only.'
  );
}

export function judgePrompt(note: string, question: string): string {
  return (
    `Question: ${question}\n\nA note taken from one part of a document:\n${note}\n\n` +
    'Does the note give at least one piece of information useful for answering the question? ' +
    'Redundant notes are still useful. Reply with one word: Keep or Remove.'
  );
}

export function mergePrompt(
  notes: readonly string[],
  question: string,
  evidenceByModel: boolean,
): string {
  const numbered = notes.map((n, i) => `Note ${i + 1}:\n${n}`).join('\n\n');
  const task = evidenceByModel
    ? 'Merge these notes into one JSON object with exactly two string keys: "Evidence", keeping ' +
      'as much of the original quoted content as possible, and "Reasoning", one or two sentences ' +
      'of reasoning toward the answer.'
    : 'Their evidence is kept as it is. Write one JSON object with the key "Reasoning": one or ' +
      'two sentences of reasoning toward the answer that combine the notes.';
  return `Question: ${question}\n\nNotes, in document order:\n\n${numbered}\n\n${task}\nReply with the JSON object only.`;
}

export function answerPrompt(notes: readonly string[], question: string): string {
  const instruction =
    'Answer the question based on the given notes. Give only the answer, then the numbers of the ' +
    'notes it comes from in square brackets, like [1]; no other words.';
  const numbered = notes.map((n, i) => `[${i + 1}]\n${n}`).join('\n\n');
  return `${instruction}\n\nThe following are the notes.\n${numbered}\n\n${instruction}\n\nQuestion: ${question}\nAnswer:`;
}
