/**
 * @file What the index worker's pool members do (pool.ts, pool.worker.ts), as plain handlers so
 * Node tests run them in-process: parse a share of a repository's files with tree-sitter, build a
 * range of the code relation's rows from its shared summary state (core/code/summary.ts), and run
 * a share of a large document's semantic relation (semantic-shares.ts).
 * Both give exactly what the single-worker path gives for the same files or windows; the index
 * worker merges the parts in order (src/indexing). Their API, `PoolApi`, is indexing's
 * (src/indexing/pool.ts).
 */
import { summaryCodeRelationRows, type RowBlock } from '../core/code/summary';
import type { CodeRowsRequest, ParseShareRequest } from '../indexing/pool';
import { CodeParser, parseRepository, type RepositorySyntax } from '../models/code-syntax';
import type { GrammarSource } from '../models/tree-sitter';
import { createCheckpoint } from '../ingest/abort';
import type { HandlerContext } from './host';
import { AbortError, buffersOf } from './protocol';
import { createShareHandler } from './semantic-shares';

export type { PoolApi } from '../indexing/pool';

export function createPoolHandlers(grammars: GrammarSource) {
  let parser: CodeParser | null = null;
  return {
    share: createShareHandler(),
    parse: async (req: ParseShareRequest, ctx: HandlerContext): Promise<RepositorySyntax> => {
      parser ??= new CodeParser(grammars);
      return parseRepository(req.files, parser, {
        checkpoint: createCheckpoint(ctx.signal),
        onProgress: (done, total) => ctx.progress({ stage: 'parse', done, total }),
      });
    },
    codeRows: (req: CodeRowsRequest, ctx: HandlerContext): RowBlock => {
      const flags = req.cancelFlags ?? [];
      const block = summaryCodeRelationRows(req.state, req.from, req.to, (done, total) => {
        if (ctx.signal.aborted || flags.some((f) => Atomics.load(f, 0) !== 0)) {
          throw new AbortError();
        }
        ctx.progress({ stage: 'relate', done, total });
      });
      ctx.transfer(buffersOf(block.rowPtr, block.col, block.weight));
      return block;
    },
  };
}
