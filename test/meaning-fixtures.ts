/**
 * @file Shared fixtures for tests of meaning: hand-written paraphrase triples and the HotpotQA
 * gold-paragraph sample from ../shared/datasets. Used by the static GloVe embedder's tests and by
 * the real transformer embedder's tests, so both are judged on the same data.
 */
import { readFileSync } from 'node:fs';
import { sharedDatasetPath } from './glove';

/** [anchor, paraphrase, unrelated]. */
export const PARAPHRASE_TRIPLES: readonly (readonly [string, string, string])[] = [
  [
    'The cat sat on the mat.',
    'A kitten was sitting on the rug.',
    'Stock markets fell sharply after the announcement.',
  ],
  [
    'He bought a new car yesterday.',
    'Yesterday he purchased a new automobile.',
    'The soup needs more salt and pepper.',
  ],
  [
    'The doctor examined the patient in the hospital.',
    'A physician checked the sick man at the clinic.',
    'The football team won the championship.',
  ],
  [
    'It is raining heavily in the city today.',
    'A lot of rain is falling on the town today.',
    'She plays the violin in an orchestra.',
  ],
  [
    'The children are playing in the park.',
    'Kids play outside in the playground.',
    'The senate passed the tax bill.',
  ],
  [
    'The company reported higher profits this quarter.',
    "The firm's earnings rose in the latest quarter.",
    'The river flooded the small village.',
  ],
  [
    'The army attacked the enemy at dawn.',
    'Soldiers launched an assault on the enemy troops early in the morning.',
    'She baked a chocolate cake for the party.',
  ],
  [
    'The scientist published a paper on quantum physics.',
    'A researcher wrote an article about particle physics.',
    'The dog barked at the mailman.',
  ],
  [
    'He was sad and cried all night.',
    'He felt unhappy and wept through the night.',
    'The train arrives at the station at noon.',
  ],
  [
    'The pianist performed a beautiful concert.',
    'The musician played a lovely piano recital.',
    'The farmer harvested wheat in the field.',
  ],
  [
    "Napoleon's army invaded Russia in 1812.",
    'The French emperor marched his troops into Russia.',
    'The recipe calls for two eggs and flour.',
  ],
];

export interface HotpotItem {
  question: string;
  title_a: string;
  para_a: string[];
  title_b: string;
  para_b: string[];
  distractors: [string, string[]][];
}

export const HOTPOT_PATH = sharedDatasetPath(
  'hotpotqa_dev_gold_sample100',
  'camera_ready_nd8_dev_sample100.json',
);

/** Each question with its paragraphs as "Title. sentences", the two gold ones first. */
export function loadHotpot(): { question: string; paragraphs: string[] }[] {
  const items = JSON.parse(readFileSync(HOTPOT_PATH, 'utf8')) as HotpotItem[];
  return items.map((item) => ({
    question: item.question,
    paragraphs: [
      [item.title_a, item.para_a] as const,
      [item.title_b, item.para_b] as const,
      ...item.distractors,
    ].map(([title, sentences]) => `${title}. ${sentences.join(' ')}`),
  }));
}

/**
 * Rank each question's paragraphs by a scorer; the share of questions whose first paragraph is
 * gold, the mean recall@2 of the two gold paragraphs, and chance for both.
 *
 * Ties go against gold (a distractor before a gold paragraph of the same score, then by index),
 * and a score that is not a number ranks last: a scorer that cannot tell the paragraphs apart
 * (a constant, NaN) then scores 0, never the 100 % that ties broken by index gave (the gold
 * paragraphs come first in each item).
 */
export function goldRanking(
  items: readonly { paragraphs: string[] }[],
  scores: (item: number) => ArrayLike<number>,
): { first: number; recall2: number; chance: number } {
  const each = goldRankingPerQuestion(items, scores);
  const n = items.length;
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const chance = sum(items.map((item) => 2 / item.paragraphs.length));
  return { first: sum(each.first) / n, recall2: sum(each.recall2) / n, chance: chance / n };
}

/**
 * goldRanking per question (first: 1 or 0; recall2: 0, 0.5 or 1), in item order, with the same
 * tie rule, for paired comparisons between scorers (bench/hotpot-static.ts).
 */
export function goldRankingPerQuestion(
  items: readonly { paragraphs: string[] }[],
  scores: (item: number) => ArrayLike<number>,
): { first: number[]; recall2: number[] } {
  const first: number[] = [];
  const recall2: number[] = [];
  const isGold = (i: number) => (i < 2 ? 1 : 0);
  items.forEach((item, q) => {
    const s = scores(q);
    const order = item.paragraphs
      .map((_, i) => ({ i, score: Number.isNaN(s[i]) ? -Infinity : s[i] }))
      .sort((x, y) => y.score - x.score || isGold(x.i) - isGold(y.i) || x.i - y.i)
      .map((x) => x.i);
    first.push(order[0] < 2 ? 1 : 0);
    recall2.push(order.slice(0, 2).filter((i) => i < 2).length / 2);
  });
  return { first, recall2 };
}
