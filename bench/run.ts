/**
 * @file Benchmark runner: `npm run bench` runs every section, `npm run bench -- speed` only the
 * named ones. Each section writes bench/results/<name>.json (its results plus the machine:
 * node version, CPU model, date) and prints a markdown table.
 *
 * To add a section, write bench/<name>.ts exporting an object of the `BenchSection` shape and
 * list it in `sections` below.
 */
import path from 'node:path';
import { answerKneeSection } from './answer-knee';
import { browserSection } from './browser';
import { embedderDistilledSection, embedderSection } from './embedder';
import { embedSpeedSection } from './embed-speed';
import { llmProfileSection } from './llm-profile';
import { llmSpeedSection } from './llm-speed';
import { wasmMemory64Section } from './wasm-memory64';
import { realEmbedderSection, realLlmSection } from './real-models';
import { rerankSection } from './rerank';
import { scaleReadSection, scaleSection } from './scale';
import { scalePoolSection } from './scale-pool';
import { scaleBookSection } from './scale-book';
import { scaleRepoSection } from './scale-repo';
import { machine, writeResults } from './results-file';
import { speedSection } from './speed';
import { parquetExportSection } from './parquet-export';
import { firstAnswerSection } from './first-answer';
import { onnxStorageSection } from './onnx-storage';

export interface BenchSection {
  name: string;
  description: string;
  /** Run the benchmark; `log` prints progress to stderr. */
  run(log: (line: string) => void): Promise<SectionOutput> | SectionOutput;
}

export interface SectionOutput {
  /** Machine-readable results, written to bench/results/<name>.json. */
  results: unknown;
  /** Human-readable summary, printed. */
  markdown: string;
  /** The results file's name when not the section's (bench/results/<file>.json). */
  file?: string;
}

const sections: BenchSection[] = [
  speedSection,
  rerankSection,
  embedderSection,
  embedderDistilledSection,
  browserSection,
  realEmbedderSection,
  realLlmSection,
  embedSpeedSection,
  llmSpeedSection,
  llmProfileSection,
  wasmMemory64Section,
  scaleSection,
  scalePoolSection,
  scaleReadSection,
  scaleRepoSection,
  scaleBookSection,
  parquetExportSection,
  answerKneeSection,
  firstAnswerSection,
  onnxStorageSection,
];

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !sections.some((s) => s.name === w));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown benchmark section(s): ${unknown.join(', ')}. Known: ${sections.map((s) => s.name).join(', ')}.`,
    );
  }
  const env = machine();
  console.log(
    `# FragRel Lens benchmarks\n\n${env.date}, Node ${env.node}, ${env.cpu} (${env.cores} cores)\n`,
  );
  for (const section of sections) {
    if (wanted.length > 0 && !wanted.includes(section.name)) continue;
    const log = (line: string) => process.stderr.write(`[${section.name}] ${line}\n`);
    log(section.description);
    const out = await section.run(log);
    const file = writeResults(out.file ?? section.name, out.results);
    console.log(`## ${section.name}\n\n${out.markdown}\n`);
    log(`results written to ${path.relative(process.cwd(), file)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
