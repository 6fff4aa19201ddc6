/**
 * @file Public API of the code-structure relation (Eq. 8): syntax types, the repository layout and
 * windows, the code graph with its call resolution, strongest paths, covering nodes, the relation
 * and its explanations. Pure TypeScript: parsing happens in src/models/code-syntax.ts.
 */
export * from './syntax';
export * from './options';
export {
  fileText,
  layoutRepository,
  repositoryWindows,
  withFinalNewline,
  type CodeWindow,
  type RepositoryLayout,
  type RepositoryLayoutFile,
} from './layout';
export { basename, dirname, joinPath, ModuleIndex, type ModuleTarget } from './modules';
export {
  Resolver,
  type DefinitionRef,
  type Resolution,
  type ResolutionRule,
  type ResolverFile,
} from './resolve';
export {
  buildCodeGraph,
  describeNode,
  EDGE_KINDS,
  type CodeEdgeKind,
  type CodeFile,
  type CodeGraph,
  type CodeGraphFile,
  type CodeGraphStats,
  type CodeNode,
  type CodeNodeKind,
} from './graph';
export { pathStrength, StrongestPaths, type Adjacency, type Reached } from './dijkstra';
export { coverWindows, type WindowCover } from './cover';
export {
  codeRelation,
  codeRelationMatrix,
  contractCalls,
  CodeStrengths,
  type CodeRelationBuildOptions,
  type ContractedGraph,
} from './relation';
export {
  explainCodeWindow,
  type CodeNodeSummary,
  type CoveringEntry,
  type NeighbourEntry,
  type PathStep,
  type WindowNeighbourhood,
} from './explain';
