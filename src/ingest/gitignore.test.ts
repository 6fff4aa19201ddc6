import { describe, expect, it } from 'vitest';
import { GitignoreMatcher, parseGitignore } from './gitignore';

function ignored(patterns: string, path: string, isDirectory = false): boolean {
  return new GitignoreMatcher([{ path: '.gitignore', text: patterns }]).ignores(path, isDirectory)
    .ignored;
}

describe('gitignore patterns', () => {
  it.each([
    // [patterns, path, isDirectory, ignored]
    ['*.log', 'a.log', false, true],
    ['*.log', 'deep/dir/b.log', false, true],
    ['*.log', 'a.log.txt', false, false],
    ['/build', 'build/x.js', false, true],
    ['/build', 'src/build/x.js', false, false],
    ['build/', 'src/build/x.js', false, true],
    ['build/', 'build', false, false], // a file named build: the pattern is for directories
    ['doc/*.txt', 'doc/a.txt', false, true],
    ['doc/*.txt', 'doc/sub/a.txt', false, false],
    ['doc/*.txt', 'x/doc/a.txt', false, false], // a middle slash anchors the pattern
    ['**/foo', 'foo', false, true],
    ['**/foo', 'a/b/foo', false, true],
    ['abc/**', 'abc/x/y', false, true],
    ['abc/**', 'abc', false, false],
    ['a/**/b', 'a/b', false, true],
    ['a/**/b', 'a/x/y/b', false, true],
    ['a?c', 'abc', false, true],
    ['a?c', 'a/c', false, false],
    ['file[0-9].txt', 'file7.txt', false, true],
    ['file[0-9].txt', 'fileA.txt', false, false],
    ['[!a]x', 'bx', false, true],
    ['[!a]x', 'ax', false, false],
    ['\\#hash', '#hash', false, true],
    ['# a comment', '# a comment', false, false],
    ['\\!bang', '!bang', false, true],
    ['trailing   ', 'trailing', false, true],
    ['space\\ ', 'space ', false, true],
    ['*.py\n!keep.py', 'keep.py', false, false],
    ['*.py\n!keep.py', 'drop.py', false, true],
    // A file in an excluded directory cannot be re-included.
    ['logs/\n!logs/keep.log', 'logs/keep.log', false, true],
    // ...but re-including the directory's contents works when the contents (not the dir) are excluded.
    ['logs/*\n!logs/keep.log', 'logs/keep.log', false, false],
    ['', 'anything', false, false],
  ])('%j vs %s (dir: %s) -> %s', (patterns, path, isDirectory, expected) => {
    expect(ignored(patterns, path, isDirectory)).toBe(expected);
  });

  it('applies nested .gitignore files below their directory, deeper ones overriding', () => {
    const m = new GitignoreMatcher([
      { path: '.gitignore', text: '*.log\n' },
      { path: 'sub/.gitignore', text: '*.tmp\n!important.log\n' },
    ]);
    expect(m.ignores('a.tmp').ignored).toBe(false);
    expect(m.ignores('sub/a.tmp').ignored).toBe(true);
    expect(m.ignores('sub/deeper/a.tmp').ignored).toBe(true);
    expect(m.ignores('sub/important.log').ignored).toBe(false);
    expect(m.ignores('important.log').ignored).toBe(true);
  });

  it('says which rule and which directory decided', () => {
    const m = new GitignoreMatcher([{ path: '.gitignore', text: '# build output\nout/\n' }]);
    const v = m.ignores('out/a/b.js');
    expect(v.ignored).toBe(true);
    expect(v.directory).toBe('out');
    expect(v.rule?.source).toBe('.gitignore:2');
    expect(v.rule?.pattern).toBe('out/');
  });

  it('skips blank lines and comments when parsing', () => {
    expect(parseGitignore('\n# x\n   \n*.a\n', '').map((r) => r.pattern)).toEqual(['*.a']);
  });
});
