/**
 * @file The repository's files as a tree, each file with its heat: its best final score (Eq. 10)
 * over its windows for the current question or completion, as a bar scaled to the run's best,
 * and how many of its windows were selected. Directories are <details> (keyboard: Enter or
 * Space opens them) whose heat is their best file's; files are buttons that open the file in the
 * viewer.
 *
 * A large repository (a million lines: 9,456 files in about 2,000 directories) is not drawn
 * whole: a directory's contents are rendered only while it is open, and above
 * OPEN_ALL_MAX_FILES files the tree starts with its directories closed except those holding the
 * open file. Drawing every file's heat took seconds of main-thread time per re-rank there.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { fmt } from '../components/ScoreBar';
import { fileKey, heatLevel, type FileHeat, type TreeDir } from './model';
import { countOf } from '../format/numbers';

/** Up to this many files, every directory starts open (the tree is drawn whole). */
export const OPEN_ALL_MAX_FILES = 400;

export interface FileTreeProps {
  docId: string;
  tree: TreeDir;
  /** Heat by fileKey(docId, path); absent before a question. */
  heat: Map<string, FileHeat> | null;
  /** The run's best final score, the heat scale. */
  max: number;
  open: string | null;
  onOpen: (path: string) => void;
}

interface Shared {
  docId: string;
  heat: Map<string, FileHeat> | null;
  max: number;
  open: string | null;
  onOpen: (path: string) => void;
  openAll: boolean;
  /** Best heat per directory path (absent: no heat). */
  dirHeat: Map<string, number> | null;
}

function countFiles(dir: TreeDir): number {
  let n = dir.files.length;
  for (const d of dir.dirs) n += countFiles(d);
  return n;
}

/** A tree's directories children first, each with its files' heat keys (built once per tree). */
interface DirectoryPlan {
  /** Directory paths, every directory after its subdirectories. */
  paths: string[];
  /** Per directory (same order), its files' fileKeys and its subdirectories' positions. */
  keys: string[][];
  children: number[][];
}

export function directoryPlan(docId: string, tree: TreeDir): DirectoryPlan {
  const plan: DirectoryPlan = { paths: [], keys: [], children: [] };
  const visit = (dir: TreeDir): number => {
    const children = dir.dirs.map(visit);
    plan.paths.push(dir.path);
    plan.keys.push(dir.files.map((f) => fileKey(docId, f.path)));
    plan.children.push(children);
    return plan.paths.length - 1;
  };
  visit(tree);
  return plan;
}

/** Each directory's best file heat, by directory path. */
export function directoryHeat(
  plan: DirectoryPlan,
  heat: Map<string, FileHeat>,
): Map<string, number> {
  const best = new Float64Array(plan.paths.length);
  const out = new Map<string, number>();
  for (let d = 0; d < plan.paths.length; d++) {
    let b = 0;
    for (const key of plan.keys[d]) b = Math.max(b, heat.get(key)?.best ?? 0);
    for (const c of plan.children[d]) b = Math.max(b, best[c]);
    best[d] = b;
    out.set(plan.paths[d], b);
  }
  return out;
}

export const FileTree = memo(function FileTree(props: FileTreeProps) {
  const { docId, tree, heat, max, open, onOpen } = props;
  const openAll = useMemo(() => countFiles(tree) <= OPEN_ALL_MAX_FILES, [tree]);
  const plan = useMemo(() => (openAll ? null : directoryPlan(docId, tree)), [docId, tree, openAll]);
  const dirHeat = useMemo(() => (heat && plan ? directoryHeat(plan, heat) : null), [heat, plan]);
  // One callback for every file row, so a re-rank re-renders only the rows whose heat changed.
  const latest = useRef(onOpen);
  useEffect(() => {
    latest.current = onOpen;
  }, [onOpen]);
  const stableOpen = useCallback((path: string) => latest.current(path), []);
  const shared: Shared = { docId, heat, max, open, onOpen: stableOpen, openAll, dirHeat };
  return (
    <ul className="file-tree" data-testid="file-tree">
      <DirectoryItems shared={shared} dir={tree} />
    </ul>
  );
});

function DirectoryItems({ shared, dir }: { shared: Shared; dir: TreeDir }) {
  const { docId, heat, max, open, onOpen } = shared;
  return (
    <>
      {dir.dirs.map((d) => (
        <Directory key={d.path} shared={shared} dir={d} />
      ))}
      {dir.files.map((f) => {
        const h = heat?.get(fileKey(docId, f.path));
        return (
          <FileItem
            key={f.path}
            name={f.name}
            path={f.path}
            best={h ? h.best : null}
            selected={h ? h.selected : 0}
            level={h ? heatLevel(h.best, max) : 0}
            isOpen={open === f.path}
            onOpen={onOpen}
          />
        );
      })}
    </>
  );
}

function Directory({ shared, dir }: { shared: Shared; dir: TreeDir }) {
  const holdsOpenFile = shared.open !== null && shared.open.startsWith(`${dir.path}/`);
  const [toggled, setToggled] = useState<boolean | null>(null);
  const isOpen = toggled ?? (shared.openAll || holdsOpenFile);
  const best = shared.dirHeat?.get(dir.path);
  const level = best === undefined ? 0 : heatLevel(best, shared.max);
  return (
    <li>
      <details
        open={isOpen}
        onToggle={(e) => {
          const now = (e.currentTarget as HTMLDetailsElement).open;
          if (now !== isOpen) setToggled(now);
        }}
      >
        <summary>
          {shared.dirHeat && (
            <span className="file-tree__heat" aria-hidden="true">
              <span style={{ width: `${Math.round(level * 100)}%` }} />
            </span>
          )}
          {dir.name}/
        </summary>
        {isOpen && (
          <ul className="file-tree">
            <DirectoryItems shared={shared} dir={dir} />
          </ul>
        )}
      </details>
    </li>
  );
}

const FileItem = memo(function FileItem({
  name,
  path,
  best,
  selected,
  level,
  isOpen,
  onOpen,
}: {
  name: string;
  path: string;
  best: number | null;
  selected: number;
  level: number;
  isOpen: boolean;
  onOpen: (path: string) => void;
}) {
  const said =
    best !== null
      ? `, best final score ${fmt(best)}${selected ? `, ${countOf(selected, 'window')} selected` : ''}`
      : '';
  return (
    <li>
      <button
        type="button"
        className={`file-tree__file${isOpen ? ' file-tree__file--open' : ''}`}
        aria-current={isOpen ? 'true' : undefined}
        data-path={path}
        data-heat={best !== null ? best.toFixed(3) : ''}
        onClick={() => onOpen(path)}
      >
        <span className="file-tree__heat" aria-hidden="true">
          <span style={{ width: `${Math.round(level * 100)}%` }} />
        </span>
        <span className="file-tree__name">{name}</span>
        {said && <span className="visually-hidden">{said}</span>}
        {best !== null && selected > 0 && (
          <span className="badge badge--selected" aria-hidden="true">
            {selected}
          </span>
        )}
      </button>
    </li>
  );
});
