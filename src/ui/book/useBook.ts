/**
 * @file Asking the ticked books: the question, the retrieval result it brought and what the book
 * view shows of it (the focused fragment, the citation that opened the reader, the phrase to
 * find), the documents' texts, and the question history's records. The state lives in the page's
 * shell, so it outlasts the code view taking the book view's place.
 */
import { useCallback, useRef, useState } from 'react';
import type { CitationRecord } from '../../store';
import { isAbortError } from '../../workers/protocol';
import {
  documentOf,
  type RetrievalResult,
  type RetrievalSettings,
} from '../../workers/retrieval-types';
import type { Notice } from '../components/NoticeStack';
import { embedderSpec } from '../library-service';
import type { LibraryController } from '../library/useLibrary';
import type { Services } from '../library/useServices';

/**
 * The shown retrieval result, and `drop`: forget it if it shows any of these documents (they
 * were removed, or read again under a new id). Apart from useBook so the library can drop it.
 */
export function useShownResult() {
  const [result, setResult] = useState<RetrievalResult | null>(null);
  const drop = useCallback(
    (docIds: readonly string[]) =>
      setResult((r) => (r?.documents.some((d) => docIds.includes(d.docId)) ? null : r)),
    [],
  );
  return { result, setResult, drop };
}

export function useBook(
  { library, service, retrieval }: Services,
  lib: LibraryController,
  shown: ReturnType<typeof useShownResult>,
  notify: (kind: Notice['kind'], text: string) => void,
) {
  const { documents, ticked, indexSettings, retrievalSettings, saveRetrievalSettings } = lib;
  const { result, setResult } = shown;
  const [question, setQuestion] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [focused, setFocused] = useState<number | null>(null);
  const [sources, setSources] = useState<Map<string, string>>(new Map());
  // Answer first: each Ask is numbered so the answer panel answers it once.
  const [askSeq, setAskSeq] = useState(0);
  // The citation that opened the reader: its claim, and a counter to scroll on every click.
  const [citation, setCitation] = useState<{ claim: string; seq: number } | null>(null);
  // The question history: the record id of each question asked this session, by its text.
  const [historyVersion, setHistoryVersion] = useState(0);
  const [findPhrase, setFindPhrase] = useState('');
  const questionIds = useRef(new Map<string, string>());
  const queryAbort = useRef<AbortController | null>(null);

  const runQuery = useCallback(
    async (q: string, settings: RetrievalSettings, asking = false) => {
      queryAbort.current?.abort();
      const controller = new AbortController();
      queryAbort.current = controller;
      const docIds = (documents ?? []).filter((d) => ticked.has(d.id)).map((d) => d.id);
      setBusy(true);
      try {
        const r = await retrieval.call(
          'query',
          {
            question: q,
            docIds,
            embedder: embedderSpec(indexSettings),
            semanticK: indexSettings.semanticK,
            settings,
          },
          { signal: controller.signal },
        );
        setResult(r);
        // A new question (not a re-rank): the answer panel may answer it at once, and the
        // history keeps it with the settings it was asked with.
        if (asking) {
          setAskSeq((n) => n + 1);
          const selected = Array.from(r.selected, (i) => {
            const d = documentOf(r, i)!;
            return { docId: d.docId, ordinal: i - d.offset };
          });
          void library
            .addQuestion({ question: q, docIds, selected, settings: { ...settings } })
            .then((record) => {
              questionIds.current.set(q, record.id);
              setHistoryVersion((v) => v + 1);
            })
            .catch((e: Error) => notify('error', e.message));
        }
        setFocused((f) =>
          f !== null && f < r.final.length ? f : (r.selectedRanked[0] ?? r.top[0] ?? null),
        );
        for (const d of r.documents) {
          if (!sources.has(d.docId)) {
            const text = await service.source(d.docId);
            if (text !== undefined) setSources((s) => new Map(s).set(d.docId, text));
          }
        }
      } catch (e) {
        if (!isAbortError(e)) notify('error', (e as Error).message);
      } finally {
        if (queryAbort.current === controller) setBusy(false);
      }
    },
    [documents, indexSettings, library, notify, retrieval, service, sources, ticked, setResult],
  );

  const ask = (e: React.FormEvent) => {
    e.preventDefault();
    const q = question.trim();
    if (!q) return;
    setAsked(q);
    setFocused(null);
    setCitation(null);
    void runQuery(q, retrievalSettings, true);
  };
  // Picking a fragment from the strip, the list or the reader drops the citation's marks.
  const pick = useCallback((index: number) => {
    setFocused(index);
    setCitation(null);
  }, []);
  const onAnswered = useCallback(
    (a: { question: string; text: string; citations: CitationRecord[]; engine: string }) => {
      const id = questionIds.current.get(a.question);
      const stored = id
        ? library.setQuestionAnswer(id, a.text, { citations: a.citations, engine: a.engine })
        : library.addQuestion({
            question: a.question,
            docIds: [...new Set(a.citations.map((c) => c.docId))],
            selected: [],
            answer: a.text,
            citations: a.citations,
            engine: a.engine,
          });
      void Promise.resolve(stored)
        .then(() => setHistoryVersion((v) => v + 1))
        .catch((e: Error) => notify('error', e.message));
    },
    [library, notify],
  );
  const onCite = useCallback((index: number, claim?: string) => {
    setFocused(index);
    setCitation((c) => ({ claim: claim ?? '', seq: (c?.seq ?? 0) + 1 }));
  }, []);

  // alpha, w_rel, relation kinds, scoring and budget re-rank the asked question at once.
  const onRetrievalSettings = (next: RetrievalSettings) => {
    saveRetrievalSettings(next);
    if (asked) void runQuery(asked, next);
  };

  return {
    question,
    setQuestion,
    result,
    busy,
    focused,
    setFocused,
    sources,
    askSeq,
    citation,
    historyVersion,
    findPhrase,
    setFindPhrase,
    ask,
    pick,
    onAnswered,
    onCite,
    onRetrievalSettings,
  };
}

export type BookController = ReturnType<typeof useBook>;
