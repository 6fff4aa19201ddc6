/**
 * @file QRMeM's settings and their defaults (PIPELINES.md 3.4; the reasons are in
 * docs/pipelines.md), apart from the pipeline so the page can show them without loading the
 * pipeline and its NER library (the pipeline is imported when it first runs).
 */
export type QrmemVariant = 'kn' | 'ges' | 'te';

export interface QrmemSettings {
  /** 'kn': QRMeM proper (reflection); 'ges': Graph Expansion Search; 'te': Entity Trial. */
  variant: QrmemVariant;
  /** Segment size in tokens; 0 = adapted: 600 (the paper's) at a 4K window or more, 300 below. */
  segmentTokens: number;
  /** KN and TE: judge rounds at most (PIPELINES.md: 3, allow up to 5). */
  maxTrials: number;
  /** GES: hops at most, edges added per hop, and the similarity an edge must reach. */
  gesHops: number;
  gesTopEdges: number;
  gesMinSimilarity: number;
  /** Questions asked of the summary (graph update); 0 turns the update off ("w/o Graph Update"). */
  questions: number;
  /** A generated question joins the pool only below this ROUGE-L F against every pooled one. */
  rougeThreshold: number;
  /** The LLM's entity extraction besides NER; off = the "w/o Open Entity" ablation. */
  llmEntities: boolean;
  /** KN: the reason and entities join the edge query; off = "w/o Reflection" (q alone). */
  reflection: boolean;
  /** Output caps. `extractTokens` also caps the question-entity call, at 128 at most. */
  extractTokens: number;
  judgeTokens: number;
  answerTokens: number;
  summaryTokens: number;
  /** Tokens kept free in every call besides its output and template. */
  margin: number;
  /** Parse failures: retries at temperature 0.7 after the first attempt at 0. */
  maxRetries: number;
}

export const defaultQrmemSettings: QrmemSettings = {
  variant: 'kn',
  segmentTokens: 0,
  maxTrials: 3,
  gesHops: 3,
  gesTopEdges: 3,
  gesMinSimilarity: 0.2,
  questions: 5,
  rougeThreshold: 0.6,
  llmEntities: true,
  reflection: true,
  extractTokens: 512,
  judgeTokens: 256,
  answerTokens: 256,
  summaryTokens: 400,
  margin: 200,
  maxRetries: 4,
};

/** One navigation round, as the trace and the graph view show it. */
export interface QrmemRound {
  trial: number;
  answerable: boolean;
  reason: string;
  /** The edge followed after this round (KN), or the entity set asked for (TE). */
  edge?: { from: string; to: string; relation: string; similarity: number };
  entities: string[];
  added: number[];
  evicted: number[];
  /** KN: the candidate set S_c after the window check, each segment with its score. */
  candidates?: Array<{ segment: number; score: number }>;
}
