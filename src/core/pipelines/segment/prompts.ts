/**
 * @file SEGMENT+'s prompts in our own words, with the intent of the paper's App. C (note and merge
 * prompts; the filter prompt is not published) and LongBench's answer layout.
 */
/** Guidelines of the note's two parts (App. C), the same whichever form the reply takes. */
const EVIDENCE =
  'exact quotes of the key sentences of this part that help answer the question, including ' +
  'partial facts that may only be useful together with other parts (for example every person, ' +
  'place or date the question could need). Quote, do not paraphrase. Leave it empty if nothing ' +
  'here helps.';
const REASONING =
  'your analysis of the question and its sub-questions from this part: answers, summaries or ' +
  'interpretations.';

export function notePrompt(
  segment: string,
  question: string,
  format: 'json' | 'lines' = 'json',
): string {
  const head =
    `Read this part of a long document and take a note for the question below.\n\n` +
    `Document part:\n${segment}\n\nQuestion: ${question}\n\n`;
  return format === 'json'
    ? head +
        'Write a JSON object with exactly two string keys:\n' +
        `- "Evidence": ${EVIDENCE}\n` +
        `- "Reasoning": ${REASONING}\n` +
        'Reply with the JSON object only.'
    : // The short guidelines: a small model given the long ones repeats the labels to its cap.
      head +
        'Write the note as two lines:\n' +
        'Evidence: exact quotes of the key sentences of this part that help answer the question. ' +
        'Quote, do not paraphrase. Leave it empty if nothing here helps.\n' +
        'Reasoning: your analysis of the question from this part.\n';
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
  format: 'json' | 'lines' = 'json',
): string {
  const numbered = notes.map((n, i) => `Note ${i + 1}:\n${n}`).join('\n\n');
  const task =
    format === 'json'
      ? evidenceByModel
        ? 'Merge these notes into one JSON object with exactly two string keys: "Evidence", ' +
          'keeping as much of the original quoted content as possible, and "Reasoning", one or ' +
          'two sentences of reasoning toward the answer.\nReply with the JSON object only.'
        : 'Their evidence is kept as it is. Write one JSON object with the key "Reasoning": one ' +
          'or two sentences of reasoning toward the answer that combine the notes.\nReply with ' +
          'the JSON object only.'
      : evidenceByModel
        ? 'Merge these notes into one note of two lines: "Evidence:", keeping as much of the ' +
          'original quoted content as possible, and "Reasoning:", one or two sentences of ' +
          'reasoning toward the answer.'
        : 'Their evidence is kept as it is. Write one line, "Reasoning:", one or two sentences ' +
          'of reasoning toward the answer that combine the notes.';
  return `Question: ${question}\n\nNotes, in document order:\n\n${numbered}\n\n${task}`;
}

export function answerPrompt(notes: readonly string[], question: string): string {
  const instruction =
    'Answer the question based on the given notes. Write the answer itself in a few words, then ' +
    'the numbers of the notes it comes from in square brackets.';
  const numbered = notes.map((n, i) => `[${i + 1}]\n${n}`).join('\n\n');
  return `${instruction}\n\nThe following are the notes.\n${numbered}\n\n${instruction}\n\nQuestion: ${question}\nAnswer:`;
}
