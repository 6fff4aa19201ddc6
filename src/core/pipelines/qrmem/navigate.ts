/**
 * @file QRMeM's navigation (PIPELINES.md 3.4): from the question's entities and their segments
 * (S_imp), one of three walks over the entity graph, then the answer. QRMeM proper (KN):
 * reflection rounds that take the neighbouring entity whose edge best matches the question, the
 * model's reason for failing and the entities at hand. Entity Trial (TE): the judge names the
 * next entities. Graph Expansion Search (GES): hops by edge similarity to the question, an
 * elaborated question q*, retrieval. Steps are `qrmem.navigate.*` and `qrmem.answer`, with
 * `phase: 'navigation'`.
 */
import { inputBudget, packInOrder } from '../budget';
import { userMessage } from '../messages';
import type { StepHandle, TraceRecorder } from '../trace';
import type { QrmemMemory } from './build';
import { EntityGraph, nerEntities, type Relation } from './entities';
import { callParsed, parseJudge, parseStringList, type JudgeVerdict } from './parse';
import { answerPrompt, elaboratePrompt, judgePrompt, questionEntitiesPrompt } from './prompts';
import { round4, type QrmemRun } from './run';
import type { QrmemRound } from './settings';

/** Where the walk went and what it answered. */
export interface Navigation {
  /** E0: the question's entities in the graph. */
  start: Set<string>;
  /** S_imp: their segments, ranked and cut to the window. */
  important: number[];
  /** Entities in the order the walk reached them (E0 first). */
  path: string[];
  rounds: QrmemRound[];
  /** The best similarity each scored edge got, by pair key. */
  scoredEdges: Map<string, number>;
  /** The segments the answer was written from. */
  context: number[];
  answer: string;
  stopReason: string;
}

/** A judge's verdict; `noAnswer` when it said "answerable" but gave no answer (taken as not). */
type Verdict = JudgeVerdict & { noAnswer?: true };

/** What a round records as the reason: the model's, and why its "answerable" was not taken. */
const roundReason = (v: Verdict) =>
  v.noAnswer
    ? `said answerable but gave no answer${v.reason.trim() ? `; its reason: ${v.reason.trim()}` : ''}`
    : v.reason;

/** The walk in progress: a Navigation plus the calls the next one waits for. */
interface Walk extends Navigation {
  lastCalls: number[];
}

/** What every variant reads, bound to one question's memory. */
interface Ground {
  run: QrmemRun;
  memory: QrmemMemory;
  windowBudget: number;
  segsOf: (keys: Iterable<string>) => number[];
  tokensOf: (list: readonly number[]) => number;
  segmentScores: () => Promise<number[]>;
  judge: (step: StepHandle, ctx: number[], entities?: string[]) => Promise<Verdict>;
  edgeText: (r: Relation) => string;
}

/** Walk the graph with the variant the settings name, then answer. */
export async function navigate(
  run: QrmemRun,
  memory: QrmemMemory,
  windowBudget: number,
): Promise<Navigation> {
  const { input, rec, settings, schedule, similarity } = run;
  const { question } = input;
  const { segments, graph } = memory;
  // ---- Navigation (question-dependent).
  const nav = rec.step('qrmem.navigate.start', "The question's entities and their segments", {
    phase: 'navigation',
  });
  const qe = await callParsed(
    rec,
    nav,
    {
      tag: 'qrmem.qentities',
      prompt: questionEntitiesPrompt(question),
      // A question names a few entities: 128 tokens at most, fewer when the extraction cap
      // is lower (a small model can write a list to the cap, and each token costs on a CPU).
      maxTokens: Math.min(128, settings.extractTokens),
    },
    parseStringList,
    schedule,
  );
  const qNames = [...(qe.ok ? qe.value : []), ...nerEntities(question)];
  const E0 = new Set(qNames.flatMap((n) => graph.match(n)));
  let segVectors: number[] | undefined;
  const segmentScores = async () =>
    (segVectors ??= await similarity(
      question,
      segments.map((s) => s.text),
    ));
  if (!E0.size) {
    const scores = await segmentScores();
    const best = scores.indexOf(Math.max(...scores));
    for (const e of graph.entities.values()) if (e.segments.includes(best)) E0.add(e.key);
    nav.note(
      `No question entity is in the graph: started from the entities of segment ${best + 1}, the most similar to the question.`,
    );
  }
  const segsOf = (keys: Iterable<string>) => {
    const out = new Set<number>();
    for (const k of keys) for (const s of graph.entities.get(k)?.segments ?? []) out.add(s);
    return [...out].sort((a, b) => a - b);
  };
  // S_imp, ranked by similarity to q and truncated when it alone overflows the window.
  let Simp = segsOf(E0);
  const tokensOf = (list: readonly number[]) =>
    list.reduce((n, s) => n + segments[s].tokens + 4, 0);
  if (tokensOf(Simp) > windowBudget) {
    const scores = await segmentScores();
    const ranked = [...Simp].sort((a, b) => scores[b] - scores[a] || a - b);
    const packed = packInOrder(
      ranked.map((s) => segments[s].tokens),
      windowBudget,
      4,
    );
    nav.note(
      `S_imp overflows the window: kept the ${packed.kept.length} of ${Simp.length} segments most similar to the question.`,
    );
    Simp = packed.kept.map((i) => ranked[i]).sort((a, b) => a - b);
  }
  nav.done({ entities: [...E0], segments: Simp.map((s) => s + 1) });

  const w: Walk = {
    start: E0,
    important: Simp,
    path: [...E0],
    rounds: [],
    scoredEdges: new Map<string, number>(),
    context: Simp,
    answer: '',
    lastCalls: [],
    stopReason: '',
  };
  const judge = async (step: StepHandle, ctx: number[], entities?: string[]): Promise<Verdict> => {
    const got = await callParsed(
      rec,
      step,
      {
        tag: 'qrmem.judge',
        prompt: judgePrompt(
          ctx.map((s) => segments[s].text),
          question,
          entities,
        ),
        maxTokens: settings.judgeTokens,
        after: w.lastCalls,
      },
      parseJudge,
      schedule,
    );
    w.lastCalls = got.calls.slice(-1);
    const verdict: JudgeVerdict = got.ok
      ? got.value
      : { answerable: false, answer: '', reason: '' };
    // "Answerable" with nothing to say is no answer: a small model's reply cut at the judge's
    // cap and repaired can read so. Taken as not answerable, so the walk goes on or the answer
    // call follows; the round says why (the reflection's query keeps the model's own reason).
    if (verdict.answerable && !verdict.answer.trim())
      return { ...verdict, answerable: false, answer: '', noAnswer: true };
    return verdict;
  };
  const edgeText = (r: Relation) =>
    `${graph.entities.get(r.head)!.name} ${r.text} ${graph.entities.get(r.tail)!.name}`;

  const g: Ground = { run, memory, windowBudget, segsOf, tokensOf, segmentScores, judge, edgeText };

  if (settings.variant === 'kn') await reflectionRounds(g, w);
  else if (settings.variant === 'te') await entityTrials(g, w);
  else await expansionSearch(g, w);

  if (settings.variant !== 'ges') {
    if (w.stopReason !== 'answerable')
      w.answer = await answerFrom(
        g,
        w,
        `Answer from the segments at hand (${w.stopReason})`,
        question,
      );
    else input.onAnswerToken?.(w.answer);
  }
  return w;
}

/** QRMeM proper (KN): reflection rounds. */
async function reflectionRounds(g: Ground, w: Walk): Promise<void> {
  const { run, memory, windowBudget, tokensOf, judge, edgeText } = g;
  const { rec, settings, similarity } = run;
  const { question } = run.input;
  const { segments, graph } = memory;
  const { start: E0, important: Simp, path, rounds, scoredEdges } = w;
  const E = new Set(E0);
  const Sc = new Map<number, number>();
  for (let trial = 1; ; trial++) {
    const step = rec.step(`qrmem.navigate.${trial}`, `Reflection round ${trial}`, {
      phase: 'navigation',
    });
    w.context = [...Simp, ...[...Sc.keys()]].sort((a, b) => a - b);
    const v = await judge(step, w.context);
    const round: QrmemRound = {
      trial,
      answerable: v.answerable,
      reason: roundReason(v),
      entities: [...E],
      added: [],
      evicted: [],
    };
    rounds.push(round);
    if (v.answerable) {
      w.answer = v.answer;
      w.stopReason = 'answerable';
    } else if (trial >= settings.maxTrials) w.stopReason = 'trial limit';
    else {
      const edges = new Map<string, { from: string; other: string; relation: Relation }>();
      for (const k of E)
        for (const n of graph.neighbours(k))
          if (!E.has(n.other)) edges.set(`${k}\u0000${n.other}`, { from: k, ...n });
      const list = [...edges.values()];
      if (!list.length) w.stopReason = 'no new neighbour';
      else {
        const names = [...E].map((k) => graph.entities.get(k)!.name);
        const query = settings.reflection ? `${question} ${v.reason} ${names.join(' ')}` : question;
        const scores = await similarity(
          query,
          list.map((e) => edgeText(e.relation)),
        );
        list.forEach((e, i) =>
          scoredEdges.set(
            EntityGraph.pairKey(e.from, e.other),
            Math.max(scoredEdges.get(EntityGraph.pairKey(e.from, e.other)) ?? -1, scores[i]),
          ),
        );
        let best = 0;
        for (let i = 1; i < list.length; i++)
          if (
            scores[i] > scores[best] ||
            (scores[i] === scores[best] && list[i].other < list[best].other)
          )
            best = i;
        const chosen = list[best];
        E.add(chosen.other);
        path.push(chosen.other);
        round.edge = {
          from: chosen.from,
          to: chosen.other,
          relation: chosen.relation.text,
          similarity: round4(scores[best]),
        };
        const fresh = graph.entities
          .get(chosen.other)!
          .segments.filter((s) => !Simp.includes(s) && !Sc.has(s));
        const freshScores = await similarity(
          query,
          fresh.map((s) => segments[s].text),
        );
        fresh.forEach((s, i) => Sc.set(s, freshScores[i]));
        round.added = fresh;
        // Window check: the best-scoring candidates that fit beside S_imp.
        const room = windowBudget - tokensOf(Simp);
        const ranked = [...Sc.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
        const packed = packInOrder(
          ranked.map(([s]) => segments[s].tokens),
          room,
          4,
        );
        for (const i of packed.dropped) {
          Sc.delete(ranked[i][0]);
          round.evicted.push(ranked[i][0]);
        }
        round.added = round.added.filter((s) => Sc.has(s));
        round.candidates = [...Sc.entries()].map(([segment, score]) => ({
          segment,
          score: round4(score),
        }));
      }
    }
    recordRound(rec, step, round);
    step.done({ answerable: v.answerable, ...(w.stopReason ? { stop: w.stopReason } : {}) });
    if (w.stopReason) break;
  }
}

/** Entity Trial (TE): the judge names the entities to try next. */
async function entityTrials(g: Ground, w: Walk): Promise<void> {
  const { run, memory, windowBudget, segsOf, segmentScores, judge } = g;
  const { rec, settings } = run;
  const { segments, graph } = memory;
  const { start: E0, path, rounds } = w;
  let E = new Set(E0);
  for (let trial = 1; ; trial++) {
    const step = rec.step(`qrmem.navigate.${trial}`, `Entity trial ${trial}`, {
      phase: 'navigation',
    });
    const segs = segsOf(E);
    const scores = await segmentScores();
    const ranked = [...segs].sort((a, b) => scores[b] - scores[a] || a - b);
    const packed = packInOrder(
      ranked.map((s) => segments[s].tokens),
      windowBudget,
      4,
    );
    w.context = packed.kept.map((i) => ranked[i]).sort((a, b) => a - b);
    const names = [...E].map((k) => graph.entities.get(k)!.name);
    const v = await judge(step, w.context, names);
    const round: QrmemRound = {
      trial,
      answerable: v.answerable,
      reason: roundReason(v),
      entities: [...E],
      added: w.context,
      evicted: packed.dropped.map((i) => ranked[i]),
    };
    rounds.push(round);
    if (v.answerable) {
      w.answer = v.answer;
      w.stopReason = 'answerable';
    } else if (packed.dropped.length) w.stopReason = 'window full';
    else if (trial >= settings.maxTrials) w.stopReason = 'trial limit';
    else {
      const next = new Set((v.entities ?? []).flatMap((n) => graph.match(n)));
      const same = next.size === E.size && [...next].every((k) => E.has(k));
      if (!next.size || same) w.stopReason = 'no new entity';
      else {
        for (const k of next) if (!E.has(k)) path.push(k);
        E = next;
      }
    }
    recordRound(rec, step, round);
    step.done({ answerable: v.answerable, ...(w.stopReason ? { stop: w.stopReason } : {}) });
    if (w.stopReason) break;
  }
}

/** Graph Expansion Search (GES): expand by edge similarity to q, no reflection; then q* and retrieval. */
async function expansionSearch(g: Ground, w: Walk): Promise<void> {
  const { run, memory, segsOf, edgeText } = g;
  const { rec, settings, similarity, count } = run;
  const { question, llm } = run.input;
  const { segments, graph } = memory;
  const { start: E0, path, scoredEdges } = w;
  const step = rec.step('qrmem.navigate.expand', 'Graph expansion search', {
    phase: 'navigation',
  });
  const E = new Set(E0);
  for (let hop = 1; hop <= settings.gesHops; hop++) {
    const edges = new Map<string, { from: string; other: string; relation: Relation }>();
    for (const k of E)
      for (const n of graph.neighbours(k))
        if (!E.has(n.other)) edges.set(`${k}\u0000${n.other}`, { from: k, ...n });
    const list = [...edges.values()];
    const scores = await similarity(
      question,
      list.map((e) => edgeText(e.relation)),
    );
    const order = list
      .map((e, i) => ({ e, s: scores[i] }))
      .filter((x) => x.s >= settings.gesMinSimilarity)
      .sort((a, b) => b.s - a.s || (a.e.other < b.e.other ? -1 : 1));
    const taken: string[] = [];
    for (const { e, s } of order) {
      if (taken.length >= settings.gesTopEdges) break;
      scoredEdges.set(EntityGraph.pairKey(e.from, e.other), s);
      if (E.has(e.other)) continue;
      E.add(e.other);
      path.push(e.other);
      taken.push(e.other);
    }
    step.note(
      `hop ${hop}: ${taken.length ? `added ${taken.join(', ')}` : 'no edge passed the bar'}`,
    );
    if (!taken.length) {
      w.stopReason = hop === 1 ? 'no edge passed the similarity bar' : `stopped at hop ${hop}`;
      break;
    }
  }
  w.stopReason ||= 'hop limit';
  const relTexts = [...graph.relations.values()]
    .filter((r) => E.has(r.head) && E.has(r.tail))
    .map(edgeText);
  const names = [...E].map((k) => graph.entities.get(k)!.name);
  const el = await rec.call(step, {
    tag: 'qrmem.elaborate',
    messages: userMessage(elaboratePrompt(question, names, relTexts.slice(0, 20))),
    maxTokens: 128,
    temperature: 0,
  });
  w.lastCalls = [el.call.id];
  const qStar = el.text.trim() || question;
  const both = `${question} ${qStar}`;
  const segs = segsOf(E);
  const relScores = await similarity(both, relTexts);
  const topRelations = relTexts
    .map((t, i) => ({ t, s: relScores[i] }))
    .sort((a, b) => b.s - a.s)
    .slice(0, 10)
    .map((x) => x.t);
  const frame = await count(answerPrompt([], question, topRelations));
  const budget = inputBudget(llm, settings.answerTokens) - frame - settings.margin;
  const scores = await similarity(
    both,
    segs.map((s) => segments[s].text),
  );
  const ranked = segs.map((s, i) => ({ s, v: scores[i] })).sort((a, b) => b.v - a.v || a.s - b.s);
  const packed = packInOrder(
    ranked.map((x) => segments[x.s].tokens),
    budget,
    4,
  );
  w.context = packed.kept.map((i) => ranked[i].s).sort((a, b) => a - b);
  step.done({ expanded: [...E], qStar, segments: w.context.map((s) => s + 1), stop: w.stopReason });
  w.answer = await answerFrom(
    g,
    w,
    'Answer from the retrieved segments and relations',
    qStar,
    topRelations,
  );
}

/** The one answer call: the segments at hand (and, for GES, the best relations) to the model. */
async function answerFrom(
  g: Ground,
  w: Walk,
  title: string,
  question: string,
  relations?: readonly string[],
): Promise<string> {
  const { rec, settings, input } = g.run;
  const { segments } = g.memory;
  const answerStep = rec.step('qrmem.answer', title, { phase: 'navigation' });
  const reply = await rec.call(answerStep, {
    tag: 'qrmem.answer',
    messages: userMessage(
      answerPrompt(
        w.context.map((s) => segments[s].text),
        question,
        relations,
      ),
    ),
    maxTokens: settings.answerTokens,
    temperature: 0,
    after: w.lastCalls,
    onToken: input.onAnswerToken,
  });
  answerStep.done({ segments: w.context.length });
  return reply.text;
}

function recordRound(rec: TraceRecorder, step: StepHandle, round: QrmemRound) {
  rec.item({
    id: `round:${round.trial}`,
    kind: 'round',
    stepId: step.id,
    label: `round ${round.trial}: ${round.answerable ? 'answerable' : 'not answerable'}`,
    text:
      (round.reason ? `reason: ${round.reason}` : '') +
      (round.edge
        ? `\nnext: ${round.edge.from} -> ${round.edge.to} ("${round.edge.relation}", similarity ${round.edge.similarity})`
        : '') +
      (round.added.length ? `\nadded segments ${round.added.map((s) => s + 1).join(', ')}` : '') +
      (round.evicted.length
        ? `\nevicted segments ${round.evicted.map((s) => s + 1).join(', ')}`
        : ''),
    ...(round.edge ? { scores: { similarity: round.edge.similarity } } : {}),
    verdict: 'kept',
    reason: round.answerable ? 'the model can answer' : round.reason || 'no reason given',
  });
}
