/**
 * @file Summarise a Chromium trace written by bench/scale-repo.ts (SCALE_REPO_TRACE): per thread
 * (the page's main thread, each worker), the CPU profile's self time by function, and the tasks
 * over 100 ms. `npx tsx bench/trace-summary.ts trace.json [functions per thread]`.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the trace format is untyped JSON */
import { readFileSync } from 'node:fs';
const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
const trace = JSON.parse(readFileSync(file, 'utf8'));
const events: any[] = Array.isArray(trace) ? trace : trace.traceEvents;
const threadName = new Map<string, string>();
for (const e of events)
  if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);
const profThread = new Map<string, string>();
const nodes = new Map<string, Map<number, any>>();
const self = new Map<string, Map<string, number>>();
for (const e of events) {
  if (e.name === 'Profile') profThread.set(`${e.pid}:${e.id}`, `${e.pid}:${e.tid}`);
}
for (const e of events) {
  if (e.name !== 'ProfileChunk') continue;
  const key = `${e.pid}:${e.id}`;
  const th = profThread.get(key) ?? `${e.pid}:${e.tid}`;
  const cp = e.args?.data?.cpuProfile;
  if (!cp) continue;
  let nm = nodes.get(key);
  if (!nm) nodes.set(key, (nm = new Map()));
  for (const n of cp.nodes ?? []) nm.set(n.id, n);
  const deltas: number[] = e.args.data.timeDeltas ?? [];
  const samples: number[] = cp.samples ?? [];
  let s = self.get(th);
  if (!s) self.set(th, (s = new Map()));
  for (let i = 0; i < samples.length; i++) {
    const n = nm.get(samples[i]);
    const cf = n?.callFrame ?? {};
    const name = `${cf.functionName || '(anon)'} ${(cf.url ?? '').split('/').pop()}:${cf.lineNumber ?? ''}`;
    const dt = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    s.set(name, (s.get(name) ?? 0) + dt);
  }
}
for (const [th, s] of self) {
  const total = [...s.values()].reduce((a, b) => a + b, 0);
  console.log(`\n== ${threadName.get(th) ?? th} (${th}): sampled ${total.toFixed(0)} ms`);
  for (const [n, ms] of [...s].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${ms.toFixed(0).padStart(8)} ms  ${n}`);
}
// Long top-level tasks per thread
const tasks = new Map<string, number[]>();
for (const e of events) {
  if (
    e.ph === 'X' &&
    (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') &&
    e.dur > 100000
  ) {
    const th = `${e.pid}:${e.tid}`;
    let t = tasks.get(th);
    if (!t) tasks.set(th, (t = []));
    t.push(Math.round(e.dur / 1000));
  }
}
for (const [th, t] of tasks)
  console.log(`tasks > 100 ms on ${threadName.get(th) ?? th}: ${t.join(', ')}`);
