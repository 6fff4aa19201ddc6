/**
 * @file The question history as files a person can keep: Markdown to read, JSON to process.
 * Both are built from the stored records; nothing here touches the DOM.
 */
import type { QuestionRecord } from '../../store';

/** Records whose question or answer contains `query` (case- and accent-insensitive). */
export function searchHistory(records: readonly QuestionRecord[], query: string): QuestionRecord[] {
  const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const q = fold(query.trim());
  if (!q) return [...records];
  return records.filter((r) => fold(`${r.question}\n${r.answer ?? ''}`).includes(q));
}

/** The history as Markdown: one section per question, its answer, its sources and settings. */
export function historyToMarkdown(records: readonly QuestionRecord[]): string {
  const parts = ['# FragRel Lens: questions and answers', ''];
  for (const r of records) {
    parts.push(`## ${r.question.replace(/\s+/g, ' ').trim()}`, '');
    parts.push(
      `*Asked ${new Date(r.date).toISOString()}${r.engine ? ` · answered by ${r.engine}` : ''}*`,
      '',
    );
    parts.push(r.answer?.trim() ? r.answer.trim() : '_No answer was written._', '');
    if (r.citations?.length) {
      parts.push('Sources:', '');
      for (const c of r.citations) parts.push(`- [${c.label}] ${c.location}`);
      parts.push('');
    }
    if (r.settings) {
      const s = Object.entries(r.settings)
        .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('+') : String(v)}`)
        .join(', ');
      parts.push(`Settings: ${s}`, '');
    }
  }
  return parts.join('\n');
}

/** The history as JSON, versioned so a later reader knows the layout. */
export function historyToJson(records: readonly QuestionRecord[]): string {
  return JSON.stringify(
    { format: 'fragrel-lens-history', version: 1, questions: records },
    null,
    2,
  );
}
