/**
 * @file A chat round as a plain-text download, for a reply that could not be stored. The text is
 * written into a file, never into the page.
 */
import type { ChatRoundRecord } from '../../store';

export function roundAsText(title: string, round: ChatRoundRecord): string {
  return `# ${title}\n\n## You (${new Date(round.at).toISOString()})\n\n${round.user}\n\n## Assistant\n\n${round.assistant}\n`;
}

export function downloadRound(title: string, round: ChatRoundRecord): void {
  const url = URL.createObjectURL(
    new Blob([roundAsText(title, round)], { type: 'text/markdown;charset=utf-8' }),
  );
  const a = document.createElement('a');
  a.href = url;
  a.download = `${title.replace(/[\\/:*?"<>|\p{Cc}]+/gu, '_').slice(0, 60) || 'chat'}-reply.md`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
