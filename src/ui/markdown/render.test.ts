// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { answerMarkdownForCopy, bracketLabels, renderAnswerHtml } from './render';

const sources = [
  { label: 1, index: 30, location: 'pg11.txt · fragment 31 · CHAPTER VI' },
  { label: 2, index: 7, location: 'pg11.txt · fragment 8 · <b>odd</b> "title"' },
];

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('renderAnswerHtml', () => {
  it('renders Markdown: emphasis, lists and code fences', () => {
    const root = dom(
      renderAnswerHtml(
        'The **Cat** grins [1].\n\n- one\n- two\n\n```js\nconst a = 1 < 2;\n```\n',
        sources,
      ),
    );
    expect(root.querySelector('strong')?.textContent).toBe('Cat');
    expect(root.querySelectorAll('ul > li')).toHaveLength(2);
    expect(root.querySelector('pre > code.language-js')?.textContent).toBe('const a = 1 < 2;\n');
    expect(root.textContent).not.toContain('**');
  });

  it('keeps citations as links to their fragments, and marks invalid ones', () => {
    const root = dom(renderAnswerHtml('Yes [1, 2]. No [999]. Both [2-4].', sources));
    const links = [...root.querySelectorAll('a.cite')];
    expect(links.map((a) => [a.textContent, a.getAttribute('data-fragment')])).toEqual([
      ['[1]', '30'],
      ['[2]', '7'],
      ['[2]', '7'],
    ]);
    expect(links[1].getAttribute('title')).toContain('<b>odd</b> "title"');
    const invalid = [...root.querySelectorAll('.cite--invalid')].map((s) => s.textContent);
    expect(invalid).toEqual(['[999?]', '[4?]']);
  });

  it('leaves a script or event-handler payload inert', () => {
    const payload = [
      '<script>window.pwned = 1</script>',
      '<img src=x onerror="window.pwned = 2">',
      '[click](javascript:window.pwned=3)',
      '![img](http://example.com/x.png)',
      '<a href="#" onclick="window.pwned=4">a</a>',
    ].join('\n\n');
    const root = dom(renderAnswerHtml(payload, sources));
    expect(root.querySelector('script, img, [onerror], [onclick]')).toBeNull();
    for (const a of root.querySelectorAll('a')) {
      expect(a.getAttribute('href') ?? '').not.toMatch(/^javascript:/i);
    }
    // The payload is shown as text, not dropped silently.
    expect(root.textContent).toContain('<script>window.pwned = 1</script>');
  });

  it('does not link a bracket still being written', () => {
    expect(dom(renderAnswerHtml('It is so [1', sources)).querySelector('a')).toBeNull();
  });
});

describe('bracketLabels', () => {
  it('splits the labels of one bracket into existing and missing excerpts', () => {
    expect(bracketLabels('[1; 3, 2]', 2)).toEqual({ valid: [1, 2], invalid: [3] });
    expect(bracketLabels('[1-99999]', 2)).toEqual({ valid: [1, 2], invalid: [99999] });
  });
});

describe('answerMarkdownForCopy', () => {
  it('keeps the Markdown and resolves each citation to its location', () => {
    const out = answerMarkdownForCopy('The **Cat** grins [1][999].', sources);
    expect(out).toBe(
      'The **Cat** grins [1][999?].\n\nSources:\n\n- [1] pg11.txt · fragment 31 · CHAPTER VI\n',
    );
  });
});

describe('links the model wrote', () => {
  it('open in a new tab without opener or referrer, and show their host', () => {
    for (const srcs of [sources, null]) {
      const root = dom(renderAnswerHtml('See [the site](https://evil.example/x?y=1) now.', srcs));
      const a = root.querySelector('a.model-link')!;
      expect(a.getAttribute('href')).toBe('https://evil.example/x?y=1');
      expect(a.getAttribute('target')).toBe('_blank');
      expect(a.getAttribute('rel')).toBe('noopener noreferrer');
      expect(root.textContent?.trim()).toBe('See the site (evil.example ↗) now.');
    }
  });

  it('render a link that is not an absolute address as text, not a link into the app', () => {
    const root = dom(renderAnswerHtml('Go [home](index.html) or [up](../x).', null));
    expect(root.querySelectorAll('a')).toHaveLength(0);
    expect(root.textContent?.trim()).toBe('Go home or up.');
  });

  it('leave citations as in-app links', () => {
    const root = dom(renderAnswerHtml('Yes [1] and [two](https://a.example).', sources));
    expect(root.querySelector('a.cite')?.getAttribute('target')).toBeNull();
    expect(root.querySelector('a.model-link')?.getAttribute('data-host')).toBe('a.example');
  });
});
