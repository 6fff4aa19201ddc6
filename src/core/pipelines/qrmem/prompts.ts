/**
 * @file QRMeM's prompts in our own words (the paper's Appendix E prompts are a figure with
 * fill-in slots and are not reproduced in PIPELINES.md), each asking for the JSON format
 * PIPELINES.md recommends where the paper is silent.
 */
export function entitiesPrompt(segment: string, question: string): string {
  return (
    `Read this part of a long document.\n\nDocument part:\n${segment}\n\n` +
    `Question: ${question}\n\n` +
    'List the key entities of this part (people, places, objects, groups, events) that could ' +
    'help answer the question. Write each as it appears in the text. Reply with a JSON list of ' +
    'strings only, for example ["Ishmael", "the Pequod"].'
  );
}

export function relationsPrompt(segment: string, entities: readonly string[]): string {
  return (
    `Document part:\n${segment}\n\nEntities: ${entities.join('; ')}\n\n` +
    'For each pair of these entities that this part relates, describe their relation in one ' +
    'short sentence. Reply with a JSON list only, each item {"head": entity, "relation": ' +
    'description, "tail": entity}, using the entity names as given. Reply [] if none.'
  );
}

export function mergeRelationPrompt(
  head: string,
  tail: string,
  relations: readonly string[],
  segments: readonly string[],
): string {
  return (
    `Entities: ${head} and ${tail}\n\n` +
    `Descriptions of their relation from different parts of a document:\n` +
    relations.map((r, i) => `${i + 1}. ${r}`).join('\n') +
    `\n\nThe parts:\n${segments.map((s, i) => `[${i + 1}] ${s}`).join('\n\n')}\n\n` +
    'Write one sentence that fuses these descriptions into the relation between the two ' +
    'entities. Reply with the sentence only.'
  );
}

export function summaryPrompt(parts: readonly string[], words: number): string {
  return (
    `Summarise the following text in at most ${words} words, keeping the people, places and ` +
    `events.\n\nText:\n${parts.join('\n\n')}\n\nSummary:`
  );
}

export function questionsPrompt(summary: string, question: string, count: number): string {
  return (
    `Summary of a document:\n${summary}\n\nQuestion: ${question}\n\n` +
    `Write ${count} new questions about the document that would help answer the question above ` +
    '(sub-questions, or questions about the people and events it depends on). Reply with a JSON ' +
    'list of strings only.'
  );
}

export function questionEntitiesPrompt(question: string): string {
  return (
    `Question: ${question}\n\nList the entities (people, places, objects, groups, events) ` +
    'this question is about. Reply with a JSON list of strings only.'
  );
}

function numbered(segments: readonly string[]): string {
  return segments.map((s, i) => `[${i + 1}] ${s}`).join('\n\n');
}

export function judgePrompt(
  segments: readonly string[],
  question: string,
  entities?: readonly string[],
): string {
  return (
    `Passages:\n${numbered(segments)}\n\nQuestion: ${question}\n\n` +
    (entities ? `Entities considered: ${entities.join('; ')}\n\n` : '') +
    'Can the question be answered from these passages? Reply with a JSON object only: ' +
    '{"answerable": true or false, "answer": the answer if answerable, citing passages as [n], ' +
    '"reason": if not answerable, what information is missing' +
    (entities ? ', "entities": the entities to look up next (keep, add or change them)}' : '}')
  );
}

export function elaboratePrompt(
  question: string,
  entities: readonly string[],
  relations: readonly string[],
): string {
  return (
    `Question: ${question}\n\nRelated entities: ${entities.join('; ')}\n` +
    `Known relations:\n${relations.map((r) => `- ${r}`).join('\n')}\n\n` +
    'Rewrite the question as one more detailed question that names the entities and relations ' +
    'that matter for answering it. Reply with the question only.'
  );
}

export function answerPrompt(
  segments: readonly string[],
  question: string,
  relations: readonly string[] = [],
): string {
  return (
    `Passages:\n${numbered(segments)}\n\n` +
    (relations.length
      ? `Relations between entities:\n${relations.map((r) => `- ${r}`).join('\n')}\n\n`
      : '') +
    `Question: ${question}\n\nAnswer the question from the passages, citing them as [n]. ` +
    'Answer:'
  );
}
