/**
 * @file QRMeM's structured memory (PIPELINES.md 3.1-3.2): entities linked to the segments that
 * mention them, and relation descriptions between co-occurring entities.
 *
 * The deterministic NER pass (in place of Stanford CoreNLP) is `compromise` (MIT, maintained,
 * pure JS, runs unchanged in Node and in the browser bundle). Chosen over wink-nlp because
 * wink's browser model (wink-eng-lite-web-model) recognises dates, numbers, e-mails and the
 * like but not people, places or organisations, which are the entities a story's graph needs;
 * compromise's `topics()` gives exactly those (people, places, organisations).
 *
 * Disambiguation (unspecified in the paper; PIPELINES.md's recommendation): names are normalised
 * (case, punctuation, leading articles and possessives) and matched exactly; the mentions and
 * segment sets of a key are united.
 */
import nlp from 'compromise';

/** "The Pequod's" -> "pequod"; "Mr. Starbuck" -> "mr starbuck". */
export function entityKey(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKC')
    .replace(/['’]s\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^(the|a|an) /, '')
    .trim();
}

/** People, places and organisations compromise finds in a text, as written (trimmed). */
export function nerEntities(text: string): string[] {
  const found = nlp(text).topics().out('array') as string[];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of found) {
    const name = raw
      .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.]+$/gu, '')
      .replace(/\.$/, '')
      .trim();
    const key = entityKey(name);
    if (key.length < 2 || seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}

export interface Entity {
  key: string;
  /** The first spelling met, for people. */
  name: string;
  /** Every spelling met (the mention set M). */
  mentions: string[];
  /** Segment indices that mention it (the set P), ascending. */
  segments: number[];
  /** Where it came from: the NER pass, the LLM, or both. */
  sources: Array<'ner' | 'llm'>;
}

export interface Relation {
  /** Entity keys, in the order the model wrote them. */
  head: string;
  tail: string;
  /** The relation description (fused when several segments described the pair). */
  text: string;
  /** Segments whose relation calls described this pair. */
  segments: number[];
  /** Every description before fusion, with its segment. */
  parts: Array<{ text: string; segment: number }>;
}

export class EntityGraph {
  readonly entities = new Map<string, Entity>();
  /** Relations by unordered pair key `a\u0000b` (a < b). */
  readonly relations = new Map<string, Relation>();

  /** Adds a mention of `name` in `segment` (merging by key); returns the key, or '' for noise. */
  addMention(name: string, segment: number, source: 'ner' | 'llm'): string {
    const key = entityKey(name);
    if (key.length < 2) return '';
    let e = this.entities.get(key);
    if (!e) {
      e = { key, name: name.trim(), mentions: [], segments: [], sources: [] };
      this.entities.set(key, e);
    }
    if (!e.mentions.includes(name.trim())) e.mentions.push(name.trim());
    if (!e.segments.includes(segment)) {
      e.segments.push(segment);
      e.segments.sort((a, b) => a - b);
    }
    if (!e.sources.includes(source)) e.sources.push(source);
    return key;
  }

  static pairKey(a: string, b: string): string {
    return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
  }

  /** A relation description of a pair from one segment; both ends must be known entities. */
  addRelation(head: string, tail: string, text: string, segment: number): boolean {
    const h = entityKey(head);
    const t = entityKey(tail);
    if (!this.entities.has(h) || !this.entities.has(t) || h === t || !text.trim()) return false;
    const pk = EntityGraph.pairKey(h, t);
    let r = this.relations.get(pk);
    if (!r) {
      r = { head: h, tail: t, text: text.trim(), segments: [], parts: [] };
      this.relations.set(pk, r);
    }
    if (!r.parts.some((p) => p.text === text.trim() && p.segment === segment))
      r.parts.push({ text: text.trim(), segment });
    if (!r.segments.includes(segment)) r.segments.push(segment);
    return true;
  }

  /** Pairs described by more than one distinct text: these need the LLM's fusion. */
  toFuse(): Relation[] {
    return [...this.relations.values()].filter(
      (r) => new Set(r.parts.map((p) => p.text.toLowerCase())).size > 1,
    );
  }

  /** The edges at `key`: each neighbour with the relation that links them. */
  neighbours(key: string): Array<{ other: string; relation: Relation }> {
    const out: Array<{ other: string; relation: Relation }> = [];
    for (const r of this.relations.values()) {
      if (r.head === key) out.push({ other: r.tail, relation: r });
      else if (r.tail === key) out.push({ other: r.head, relation: r });
    }
    return out;
  }

  /** The graph's nodes that a name matches: its key exactly, else nodes whose key contains it as
   * whole words or is contained in it (so "Ahab" finds "captain ahab"). */
  match(name: string): string[] {
    const key = entityKey(name);
    if (!key) return [];
    if (this.entities.has(key)) return [key];
    const words = (k: string) => ` ${k} `;
    return [...this.entities.keys()].filter(
      (k) => words(k).includes(words(key)) || words(key).includes(words(k)),
    );
  }
}
