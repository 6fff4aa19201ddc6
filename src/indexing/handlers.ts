/**
 * @file The index worker's handlers, bound to their dependencies: the book pipeline (book.ts),
 * the repository pipeline (repo.ts), and the two registries that keep work between calls: the
 * indexes computed and not yet stored (held.ts) and the folder entries handed over in slices
 * (staged.ts). The index worker serves them (src/workers/index.worker.ts); tests run the same
 * handlers in-process with an embedder loader and grammar source of their own.
 */
import type { FolderEntry } from '../ingest/repo';
import { CodeParser } from '../models/code-syntax';
import { embed, indexBook, relate } from './book';
import { HeldIndexes, previousIndex, storeHeld } from './held';
import { indexRepository, relateCode } from './repo';
import { StagedFolders } from './staged';
import { buffersOf } from '../core/transfer';
import type {
  EmbedRequest,
  HeldIndexResult,
  HeldRepositoryResult,
  IndexContext,
  IndexDependencies,
  IndexRepositoryRequest,
  IndexRequest,
  ReadDocument,
  RelateCodeRequest,
  RelateRequest,
  StoreHeldRequest,
} from './types';

/** The handlers of the index worker, bound to their dependencies. */
export function createIndexHandlers(deps: IndexDependencies) {
  let codeParser: CodeParser | null = null;
  const parser = () => {
    if (!deps.grammars) {
      throw new Error('This build cannot parse code: no tree-sitter grammars were given.');
    }
    codeParser ??= new CodeParser(deps.grammars);
    return codeParser;
  };
  const holding = new HeldIndexes();
  const staged = new StagedFolders();
  // What is held is never sent, so nothing may be transferred (that would empty the arrays).
  const keep = (ctx: IndexContext): IndexContext => ({ ...ctx, transfer: () => {} });
  return {
    index: (req: IndexRequest, ctx: IndexContext) => indexBook(deps, req, ctx),
    indexHeld: async (req: IndexRequest, ctx: IndexContext): Promise<HeldIndexResult> => {
      const r = await indexBook(deps, req, keep(ctx));
      const text = r.document?.text ?? ('text' in req.source ? req.source.text : '');
      let document: Omit<ReadDocument, 'text'> | undefined;
      if (r.document) {
        const { text: _text, ...rest } = r.document;
        document = rest;
      }
      const held = holding.hold({
        text,
        fragments: r.fragments,
        vectors: r.vectors,
        embedderId: r.embedderId,
        semantic: r.semantic,
      });
      return {
        held,
        ...(document ? { document } : {}),
        fragmentCount: r.fragments.starts.length,
        embedderId: r.embedderId,
        timings: r.timings,
      };
    },
    indexRepositoryHeld: async (
      req: IndexRepositoryRequest,
      ctx: IndexContext,
    ): Promise<HeldRepositoryResult> => {
      let request = staged.takeInto(req);
      if (req.previousFrom && deps.library) {
        const { dbName, docId, embedderId } = req.previousFrom;
        const previous = await previousIndex(await deps.library(dbName), docId, embedderId);
        if (previous) request = { ...request, previous };
      }
      const r = await indexRepository(deps, parser, request, keep(ctx));
      if (!r.ok) return r;
      const held = holding.hold({
        text: r.text,
        fragments: r.fragments,
        vectors: r.vectors,
        embedderId: r.embedderId,
        semantic: r.semantic,
        code: { matrix: r.code, references: r.codeReferences, scopes: r.codeScopes },
        parses: r.parses,
        parsesChars: r.parsesChars,
      });
      return {
        ok: true,
        held,
        document: r.document,
        fragmentCount: r.fragments.starts.length,
        embedderId: r.embedderId,
        codeParams: r.codeParams,
        report: r.report,
        timings: r.timings,
      };
    },
    storeHeld: (req: StoreHeldRequest, ctx: IndexContext) => {
      if (!deps.library) {
        holding.drop(req.held);
        throw new Error('This indexing worker has no access to the library.');
      }
      return storeHeld(holding, deps.library, req, ctx);
    },
    dropHeld: ({ held }: { held: number }) => {
      holding.drop(held);
      return null;
    },
    stageFolder: (req: { staged?: number; entries: FolderEntry[] }) => staged.add(req),
    dropStaged: ({ staged: key }: { staged: number }) => {
      staged.drop(key);
      return null;
    },
    embed: (req: EmbedRequest, ctx: IndexContext) => embed(deps, req, ctx),
    indexRepository: (req: IndexRepositoryRequest, ctx: IndexContext) =>
      indexRepository(deps, parser, staged.takeInto(req), ctx),
    relateCode: (req: RelateCodeRequest, ctx: IndexContext) => relateCode(deps, parser, req, ctx),
    relate: async (req: RelateRequest, ctx: IndexContext) => {
      const t0 = performance.now();
      const semantic = await relate(deps, req.vectors, req.semanticK, ctx);
      ctx.transfer(buffersOf(semantic.rowPtr, semantic.col, semantic.weight));
      return { semantic, relateMs: performance.now() - t0 };
    },
  };
}
