/**
 * @file .gitignore patterns, as git documents them (gitignore(5)), for deciding which files of a
 * dropped repository to leave out.
 *
 * Supported: blank lines and `#` comments; `\#` and `\!` escapes; trailing spaces trimmed unless
 * escaped (`\ `); `!` negation; a trailing `/` matching directories only; a `/` at the start or in
 * the middle anchoring the pattern to the .gitignore's directory (otherwise it matches at any depth
 * below it); `*`, `?` and `[...]` classes (`[!...]` and `[^...]` negated, ranges) that never match
 * `/`; `**` as a whole segment (`**` + `/x` any depth, `x/` + `**` everything inside, `a/` + `**` + `/b`
 * zero or more directories). The last matching pattern wins, deeper .gitignore files override
 * shallower ones, and a file inside an ignored directory stays ignored whatever a later pattern
 * says (git cannot re-include it either).
 *
 * Not supported: $GIT_DIR/info/exclude, core.excludesFile and the global ignore file (a dropped
 * repository has no git configuration), case-insensitive matching (core.ignorecase), and
 * .gitattributes (linguist-generated / linguist-vendored).
 */

export interface GitignoreRule {
  /** Directory of the .gitignore file ('' for the repository root). */
  base: string;
  /** The pattern as written (after trimming), for the skip report. */
  pattern: string;
  /** Where it came from: `path/.gitignore:12`. */
  source: string;
  negate: boolean;
  directoryOnly: boolean;
  regex: RegExp;
}

/** Translate a glob (without `!`, leading `/` or trailing `/`) to a regular expression body. */
function globToRegex(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          if (i + 2 === glob.length) {
            out += '.*'; // `x/**`: everything inside
            i += 2;
          } else {
            out += '(?:.*/)?'; // `**/x` and `a/**/b`: zero or more directories
            i += 3;
          }
          continue;
        }
      }
      // Other runs of asterisks are ordinary `*`.
      while (glob[i] === '*') i++;
      out += '[^/]*';
      continue;
    }
    if (ch === '?') {
      out += '[^/]';
      i++;
      continue;
    }
    if (ch === '[') {
      const close = findClassEnd(glob, i);
      if (close > 0) {
        let body = glob.slice(i + 1, close);
        let negated = false;
        if (body.startsWith('!') || body.startsWith('^')) {
          negated = true;
          body = body.slice(1);
        }
        const cls = body.replace(/\\(.)/g, '$1').replace(/[\\\]^]/g, (c) => `\\${c}`);
        out += negated ? `(?!/)[^${cls}]` : `[${cls}]`;
        i = close + 1;
        continue;
      }
      out += '\\[';
      i++;
      continue;
    }
    if (ch === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]);
      i += 2;
      continue;
    }
    out += escapeRegex(ch);
    i++;
  }
  return out;
}

/** Index of the `]` closing a class opened at `open`, or -1 when it is not a class. */
function findClassEnd(glob: string, open: number): number {
  let j = open + 1;
  if (glob[j] === '!' || glob[j] === '^') j++;
  if (glob[j] === ']') j++; // a leading `]` is literal
  for (; j < glob.length; j++) {
    if (glob[j] === '\\') j++;
    else if (glob[j] === ']') return j;
    else if (glob[j] === '/') return -1;
  }
  return -1;
}

function escapeRegex(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}

/** Trailing spaces go unless escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ') {
    if (end >= 2 && line[end - 2] === '\\') {
      // `\ ` keeps one space (the escape is resolved by globToRegex).
      break;
    }
    end--;
  }
  return line.slice(0, end);
}

/** Parse one .gitignore file found in directory `base` ('' for the root). */
export function parseGitignore(text: string, base: string, sourcePath?: string): GitignoreRule[] {
  const rules: GitignoreRule[] = [];
  const source = sourcePath ?? (base ? `${base}/.gitignore` : '.gitignore');
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, lineIndex) => {
    let line = trimTrailingSpaces(raw.replace(/\r$/, ''));
    if (line === '' || line.startsWith('#')) return;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    let directoryOnly = false;
    if (line.endsWith('/') && !line.endsWith('\\/')) {
      directoryOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') return;
    // A slash at the start or in the middle anchors the pattern to `base`.
    const anchored = line.includes('/');
    const glob = line.replace(/^\/+/, '');
    if (glob === '') return;
    const body = globToRegex(glob);
    const regex = new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`, 'u');
    rules.push({
      base,
      pattern: raw.trim(),
      source: `${source}:${lineIndex + 1}`,
      negate,
      directoryOnly,
      regex,
    });
  });
  return rules;
}

/** The verdict on one path: ignored or not, and the rule that decided (null: none matched). */
export interface IgnoreVerdict {
  ignored: boolean;
  rule: GitignoreRule | null;
  /** When a parent directory is ignored: that directory. */
  directory?: string;
}

/**
 * All .gitignore files of a repository. `ignores(path)` walks the path's directories from the
 * root, so a file under an ignored directory is ignored even if a negation matches it.
 */
export class GitignoreMatcher {
  private readonly byBase = new Map<string, GitignoreRule[]>();
  private readonly dirCache = new Map<string, IgnoreVerdict>();

  /** `files`: each .gitignore's path (e.g. `src/.gitignore`) and text. */
  constructor(files: readonly { path: string; text: string }[] = []) {
    for (const f of files) {
      const slash = f.path.lastIndexOf('/');
      const base = slash < 0 ? '' : f.path.slice(0, slash);
      this.byBase.set(base, [
        ...(this.byBase.get(base) ?? []),
        ...parseGitignore(f.text, base, f.path),
      ]);
    }
  }

  get size(): number {
    let n = 0;
    for (const rules of this.byBase.values()) n += rules.length;
    return n;
  }

  /** The last rule matching `path` itself (not its parents), shallow files first. */
  private match(path: string, isDirectory: boolean): IgnoreVerdict {
    let verdict: IgnoreVerdict = { ignored: false, rule: null };
    const parts = path.split('/');
    for (let depth = 0; depth < parts.length; depth++) {
      const base = parts.slice(0, depth).join('/');
      const rules = this.byBase.get(base);
      if (!rules) continue;
      const rel = parts.slice(depth).join('/');
      for (const rule of rules) {
        if (rule.directoryOnly && !isDirectory) continue;
        if (rule.regex.test(rel)) verdict = { ignored: !rule.negate, rule };
      }
    }
    return verdict;
  }

  private directory(dir: string): IgnoreVerdict {
    let hit = this.dirCache.get(dir);
    if (hit) return hit;
    const slash = dir.lastIndexOf('/');
    const parent = slash < 0 ? null : this.directory(dir.slice(0, slash));
    if (parent?.ignored) hit = parent;
    else {
      const own = this.match(dir, true);
      hit = own.ignored ? { ...own, directory: dir } : own;
    }
    this.dirCache.set(dir, hit);
    return hit;
  }

  /** Whether git would ignore the file at `path` ('/'-separated, relative to the root). */
  ignores(path: string, isDirectory = false): IgnoreVerdict {
    if (this.byBase.size === 0) return { ignored: false, rule: null };
    const slash = path.lastIndexOf('/');
    if (slash > 0) {
      const parent = this.directory(path.slice(0, slash));
      if (parent.ignored) return parent;
    }
    return isDirectory ? this.directory(path) : this.match(path, false);
  }
}
