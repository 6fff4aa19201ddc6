/**
 * @file The repository's files as a tree, each file with its heat: its best final score (Eq. 10)
 * over its windows for the current question or completion, as a bar scaled to the run's best,
 * and how many of its windows were selected. Directories are <details> (keyboard: Enter or
 * Space opens them); files are buttons that open the file in the viewer.
 */
import { fmt } from '../components/ScoreBar';
import { fileKey, heatLevel, type FileHeat, type TreeDir } from './model';

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

export function FileTree(props: FileTreeProps) {
  return (
    <ul className="file-tree" data-testid="file-tree">
      <DirectoryItems {...props} dir={props.tree} />
    </ul>
  );
}

function DirectoryItems(props: FileTreeProps & { dir: TreeDir }) {
  const { dir, docId, heat, max, open, onOpen } = props;
  return (
    <>
      {dir.dirs.map((d) => (
        <li key={d.path}>
          <details open>
            <summary>{d.name}/</summary>
            <ul className="file-tree">
              <DirectoryItems {...props} dir={d} />
            </ul>
          </details>
        </li>
      ))}
      {dir.files.map((f) => {
        const h = heat?.get(fileKey(docId, f.path));
        const level = h ? heatLevel(h.best, max) : 0;
        const said = h
          ? `, best final score ${fmt(h.best)}${h.selected ? `, ${h.selected} windows selected` : ''}`
          : '';
        return (
          <li key={f.path}>
            <button
              type="button"
              className={`file-tree__file${open === f.path ? ' file-tree__file--open' : ''}`}
              aria-current={open === f.path ? 'true' : undefined}
              data-path={f.path}
              data-heat={h ? h.best.toFixed(3) : ''}
              onClick={() => onOpen(f.path)}
            >
              <span className="file-tree__heat" aria-hidden="true">
                <span style={{ width: `${Math.round(level * 100)}%` }} />
              </span>
              <span className="file-tree__name">{f.name}</span>
              {said && <span className="visually-hidden">{said}</span>}
              {h && h.selected > 0 && (
                <span className="badge badge--selected" aria-hidden="true">
                  {h.selected}
                </span>
              )}
            </button>
          </li>
        );
      })}
    </>
  );
}
