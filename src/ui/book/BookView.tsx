/**
 * @file The book view: ask the ticked books, read the answer and its evidence (the documents'
 * strips, the reader, the explanation, the ranked passages), and the panels that work on the
 * same result (settings, tuning, the answer pipelines, Compare). Its state is useBook's, held by
 * the page's shell.
 */
import { useCallback, useMemo } from 'react';
import { budgetLine } from '../../core/why/reasons';
import type { PipelineMemory } from '../../core/pipelines/types';
import { AnswerPanel } from '../answer/AnswerPanel';
import { Controls } from '../components/Controls';
import { DocumentStrip } from '../components/DocumentStrip';
import { ExplanationView } from '../components/ExplanationView';
import { FindInBook, findInRun } from '../components/FindInBook';
import { RankedList } from '../components/RankedList';
import { Reader } from '../components/Reader';
import { ComparePanel } from '../compare/ComparePanel';
import { countOf, formatCount } from '../format/numbers';
import { EMBEDDER_CHOICES, embedderSpec } from '../library-service';
import type { LibraryController } from '../library/useLibrary';
import type { Services } from '../library/useServices';
import { embedderChoicesFor, offlineVectorsNote } from '../offline-vectors';
import { PipelinesPanel } from '../pipelines/PipelinesPanel';
import { ScoringNotice } from '../scripts/ScoringNotice';
import { TunePanel } from '../tune/TunePanel';
import { documentOf } from '../../workers/retrieval-types';
import type { BookController } from './useBook';

export function BookView({
  services: { library, retrieval },
  lib,
  book,
  memory,
}: {
  services: Services;
  lib: LibraryController;
  book: BookController;
  memory: PipelineMemory;
}) {
  const { documents, ticked, indexSettings, retrievalSettings, offline } = lib;
  const { result, sources, focused, pick, findPhrase } = book;
  const selected = useMemo(() => new Set(result?.selected ?? []), [result]);
  const found = useMemo(
    () => (result ? findInRun(result, sources, findPhrase) : { hits: [], matches: 0 }),
    [result, sources, findPhrase],
  );
  const findHits = useMemo(() => new Set(found.hits), [found]);
  const line = useMemo(
    () => (result ? budgetLine(result.final, result.selected, result.excluded) : null),
    [result],
  );
  // Dense scores of a book sit in a narrow band (GloVe cosines near 0.5): draw the band, not 0..1.
  const scale = useMemo(() => {
    if (!result) return { low: 0, high: 1 };
    let low = Infinity;
    let high = -Infinity;
    for (const a of [result.independent, result.environment, result.final]) {
      for (const v of a) {
        if (v < low) low = v;
        if (v > high) high = v;
      }
    }
    return { low: Math.min(low, high), high };
  }, [result]);
  const tickedCount = (documents ?? []).filter((d) => ticked.has(d.id)).length;
  const kindOf = useCallback(
    (docId: string) => documents?.find((d) => d.id === docId)?.kind ?? 'prose',
    [documents],
  );

  // What the answer pipelines and Compare both answer from.
  const answering = {
    result,
    sources,
    kindOf,
    onCite: book.setFocused,
    hubHost: indexSettings.hubHost,
    embedder: embedderSpec(indexSettings),
    memory,
  };

  return (
    <>
      <form className="ask" onSubmit={book.ask} role="search">
        <label htmlFor="question" className="visually-hidden">
          Question
        </label>
        <input
          id="question"
          value={book.question}
          onChange={(e) => book.setQuestion(e.target.value)}
          placeholder={
            tickedCount
              ? `Ask ${tickedCount === 1 ? 'the ticked document' : `the ${tickedCount} ticked documents`}…`
              : 'Add a book to ask it questions'
          }
        />
        <button type="submit" className="primary" disabled={!tickedCount || !book.question.trim()}>
          Ask
        </button>
      </form>
      <div className="results" data-testid="results">
        <div className="results__answer">
          <AnswerPanel
            result={result}
            sources={sources}
            onCite={book.onCite}
            autoAnswer={book.askSeq || undefined}
            onAnswered={book.onAnswered}
          />
        </div>
        <div className="results__evidence">
          {book.busy && !result && <p role="status">Finding the passages…</p>}
          {result && (
            <section aria-label="Evidence" data-testid="retrieval">
              <h2 className="card__title">Evidence</h2>
              <p className="stats" data-testid="retrieval-summary">
                {countOf(result.selected.length, 'passage')} used ({formatCount(result.used)} of{' '}
                {formatCount(result.budget)} words of context) for “{result.question}” · scored in{' '}
                {result.timings.independentMs.toFixed(0)} ms, ranked in{' '}
                <span data-testid="rerank-ms">{result.timings.rerankMs.toFixed(1)}</span> ms
              </p>
              <ScoringNotice result={result} />
              <FindInBook
                phrase={findPhrase}
                onPhrase={book.setFindPhrase}
                found={found}
                focused={focused}
                onPick={pick}
              />
              {result.documents.map((d) => (
                <DocumentStrip
                  hits={findHits}
                  key={d.docId}
                  doc={d}
                  independent={result.independent}
                  environment={result.environment}
                  final={result.final}
                  selected={selected}
                  cutoff={line}
                  scale={scale}
                  focused={focused}
                  onPick={pick}
                />
              ))}
              <div className="panel">
                {focused !== null && (
                  <div className="card">
                    <Reader
                      result={result}
                      index={focused}
                      citation={book.citation}
                      source={sources.get(documentOf(result, focused)?.docId ?? '') ?? null}
                      onPick={pick}
                    />
                    <ExplanationView result={result} index={focused} onPick={pick} />
                  </div>
                )}
                <div className="card">
                  <h2 className="card__title">Passages by relevance</h2>
                  <RankedList
                    result={result}
                    focused={focused}
                    onPick={pick}
                    source={(id) => sources.get(id) ?? null}
                  />
                </div>
              </div>
            </section>
          )}
        </div>
      </div>
      <Controls
        retrieval={retrievalSettings}
        index={indexSettings}
        embedders={embedderChoicesFor(EMBEDDER_CHOICES, offline)}
        offlineNote={offlineVectorsNote(offline)}
        onRetrieval={book.onRetrievalSettings}
        onIndex={lib.onIndexSettings}
        onHubHost={lib.onHubHost}
      />
      <TunePanel
        retrieval={retrieval}
        library={library}
        documents={(documents ?? []).filter((d) => ticked.has(d.id) && d.kind === 'prose')}
        embedder={embedderSpec(indexSettings)}
        semanticK={indexSettings.semanticK}
        settings={retrievalSettings}
        onSettings={book.onRetrievalSettings}
      />
      <PipelinesPanel {...answering} />
      <ComparePanel {...answering} store={library} />
    </>
  );
}
