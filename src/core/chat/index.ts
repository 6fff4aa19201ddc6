/** @file Public API of chat memory: the conversation as FragRel's external memory. */
export {
  chatMemoryOptions,
  defaultChatMemoryOptions,
  type BudgetSplitRule,
  type ChatMemoryMode,
  type ChatMemoryOptions,
  type ChatScoring,
} from './options';
export { estimateTokens, type TokenCounter } from './tokens';
export {
  mergeByScore,
  shareBudget,
  splitOf,
  type BudgetSplit,
  type ChatCandidates,
  type DocumentCandidates,
  type SharedSelection,
} from './budget';
export {
  memoryQuery,
  memorySwitch,
  planChatMemory,
  roundText,
  type ChatEmbedder,
  type ChatMemoryInput,
  type ChatMemoryPlan,
  type ChatRound,
  type RoundPlan,
  type RoundReason,
  type SwitchReason,
} from './memory';
