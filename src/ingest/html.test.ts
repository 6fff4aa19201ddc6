import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { declaredCharset, htmlToText } from './html';
import { decodeEntities, findAll, parseXml, textContent, tokenize } from './markup';

describe('htmlToText', () => {
  it('keeps visible text, makes blocks paragraphs and drops head, scripts and styles', () => {
    const html = `<!DOCTYPE html>
<html><head><title>Not shown</title><style>p { color: red }</style>
<script>if (a < b) document.write("<p>no</p>");</script></head>
<body>
  <!-- a comment -->
  <h1>The  Title</h1>
  <p>First   paragraph,
     across lines, with <b>bold</b> and <i>it</i>alic.</p>
  <div>A div<br>with a break.</div>
  <ul><li>one</li><li>two</li></ul>
  <table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
  <noscript>Enable scripts</noscript>
  <template><p>template</p></template>
  <p hidden>hidden</p><p style="display: none">invisible</p>
  <pre>
  code  kept
    as is</pre>
  <p>After &lt;pre&gt; &amp; caf&eacute; &#8220;quoted&#x201D;&nbsp;end.</p>
</body></html>`;
    const { text } = htmlToText(html);
    expect(text).toBe(
      [
        'The Title',
        'First paragraph, across lines, with bold and italic.',
        'A div\nwith a break.',
        'one\ntwo',
        'a\tb\nc\td',
        '  code  kept\n    as is',
        'After <pre> & café “quoted” end.',
      ].join('\n\n'),
    );
  });

  it('records h1-h6 with their spans in the output', () => {
    const html =
      '<h1>Book <em>One</em></h1><p>x</p><h2 id="c1">Chapter&nbsp;1</h2><p>y</p><h3></h3><h4>Deep</h4>';
    const { text, headings } = htmlToText(html);
    expect(text).toBe('Book One\n\nx\n\nChapter 1\n\ny\n\nDeep');
    expect(headings).toEqual([
      { level: 1, title: 'Book One', start: 0, end: 8 },
      { level: 2, title: 'Chapter 1', start: 13, end: 22 },
      { level: 4, title: 'Deep', start: 27, end: 31 },
    ]);
    for (const h of headings) expect(text.slice(h.start, h.end)).toBe(h.title);
  });

  it('reads XHTML with CDATA, self-closing tags, namespaced elements and a soft hyphen', () => {
    const xhtml =
      '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>' +
      '<p>Line<br/>break</p><p><![CDATA[1 < 2 & 3]]></p><svg:svg><svg:text>no</svg:text></svg:svg>' +
      '<p>ex&shy;ample</p></body></html>';
    expect(htmlToText(xhtml).text).toBe('Line\nbreak\n\n1 < 2 & 3\n\nexample');
  });

  it('survives broken markup', () => {
    expect(htmlToText('<p>a < b and <unclosed').text).toBe('a < b and');
    expect(htmlToText('<p title="x>y">text</p><script>never closed').text).toBe('text');
    expect(htmlToText('plain text, no tags').text).toBe('plain text, no tags');
  });

  it('gives back any text that was escaped into HTML, white space collapsed (property)', () => {
    const escape = (s: string) =>
      s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    // What a browser shows of one paragraph: ASCII white space collapsed and trimmed, soft
    // hyphens invisible.
    const shown = (s: string) =>
      s
        .replace(/\u00ad/g, '')
        .replace(/[ \t\n\r\f]+/g, ' ')
        .replace(/^ | $/g, '');
    const paragraph = fc
      .string({ unit: 'grapheme', maxLength: 40 })
      .map((s) => s.replace(/\u00a0/g, 'x'));
    const spaced = fc.array(fc.oneof(paragraph, fc.constantFrom(' a ', '\t\n', 'b  c')), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(spaced, (paras) => {
        const html = paras.map((p) => `<p>${escape(p)}</p>`).join('\n');
        const expected = paras
          .map(shown)
          .filter((p) => p.length > 0)
          .join('\n\n');
        expect(htmlToText(html).text).toBe(expected);
      }),
    );
  });

  it('keeps no-break spaces as spaces between inline elements', () => {
    expect(htmlToText('<p><b>a</b>&nbsp;<i>b</i> c&nbsp;&nbsp;d</p>').text).toBe('a b c  d');
    expect(htmlToText('<p>one <b> two </b> three</p>').text).toBe('one two three');
  });
});

describe('markup', () => {
  it('decodes named, decimal and hex references, leaving unknown ones alone', () => {
    expect(decodeEntities('&amp;&lt;&gt;&quot;&apos;&eacute;&mdash;&hellip;&euro;')).toBe(
      '&<>"\'é—…€',
    );
    expect(decodeEntities('&#233;&#xE9;&#X1F600;&#150;&#0;')).toBe('éé😀–\ufffd');
    expect(decodeEntities('&nosuch; &amp AT&T')).toBe('&nosuch; & AT&T');
  });

  it('tokenizes attributes in all quoting styles', () => {
    const tokens = [...tokenize(`<a HREF="x.html#y" data-x='1 > 0' checked class=big>t</a>`)];
    expect(tokens).toEqual([
      {
        type: 'open',
        name: 'a',
        attrs: { href: 'x.html#y', 'data-x': '1 > 0', checked: '', class: 'big' },
        selfClosing: false,
      },
      { type: 'text', text: 't' },
      { type: 'close', name: 'a' },
    ]);
  });

  it('parses XML into a tree by local names', () => {
    const tree = parseXml(
      '<?xml version="1.0"?><opf:package xmlns:opf="x"><opf:metadata><dc:title>Pride &amp; ' +
        'Prejudice</dc:title></opf:metadata><opf:spine toc="ncx"><opf:itemref idref="a"/>' +
        '<opf:itemref idref="b"/></opf:spine></opf:package>',
    );
    expect(findAll(tree, 'itemref').map((e) => e.attrs['idref'])).toEqual(['a', 'b']);
    expect(textContent(findAll(tree, 'title')[0])).toBe('Pride & Prejudice');
    expect(findAll(tree, 'spine')[0].attrs['toc']).toBe('ncx');
  });
});

describe('declaredCharset', () => {
  it('finds <meta charset>, the http-equiv form and the XML declaration', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(declaredCharset(enc('<meta charset="ISO-8859-1">'))).toBe('ISO-8859-1');
    expect(
      declaredCharset(
        enc('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'),
      ),
    ).toBe('windows-1252');
    expect(declaredCharset(enc("<?xml version='1.0' encoding='iso-8859-2'?><a/>"))).toBe(
      'iso-8859-2',
    );
    expect(declaredCharset(enc('<p>none</p>'))).toBeUndefined();
  });
});
