/**
 * @file Test fixtures for chat memory: rounds on unrelated everyday topics, the filler of the
 * hand-made conversations in which one early round holds what a late message refers back to.
 * Plain data only.
 */
import type { ChatRound } from './memory';

/** Ten rounds, each on its own topic (cooking, code, taxes, sport, music, money, ...). */
export const UNRELATED_ROUNDS: readonly ChatRound[] = [
  {
    user: 'How long should I boil spaghetti?',
    assistant: 'About nine to eleven minutes in salted water, until al dente.',
  },
  {
    user: 'How do I sort a list of numbers in Python?',
    assistant: 'Call sorted(numbers) for a new list or numbers.sort() to sort in place.',
  },
  {
    user: 'When is the deadline for filing my income tax return?',
    assistant: 'In the United States it is usually April 15, unless it falls on a weekend.',
  },
  {
    user: 'Give me a training plan for my first marathon.',
    assistant: 'Run four times a week, build the long run slowly to 32 kilometres, and taper.',
  },
  {
    user: 'Which guitar chords should a beginner learn first?',
    assistant: 'G, C, D, E minor and A minor cover a great many songs.',
  },
  {
    user: 'Are fixed or variable mortgage rates better right now?',
    assistant: 'Fixed rates give certainty; variable ones can be cheaper if rates fall.',
  },
  {
    user: 'Explain how photosynthesis works in plants.',
    assistant: 'Leaves capture sunlight and turn carbon dioxide and water into sugar and oxygen.',
  },
  {
    user: 'What is a good chess opening for white?',
    assistant: 'The Italian Game and the Queen\u2019s Gambit are solid choices.',
  },
  {
    user: 'How do I fix a flat bicycle tire?',
    assistant: 'Remove the wheel, find the puncture, patch or replace the inner tube, reinflate.',
  },
  {
    user: 'What yarn is best for knitting a warm scarf?',
    assistant: 'Merino wool is soft and warm; alpaca is warmer still.',
  },
];
