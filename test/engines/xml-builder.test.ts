// The XML builder the ODT writer uses: user text can only become character data, read back by an independent
// XML parser (fast-xml-parser) and by Python's expat; markup comes only from element names checked as names.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { el, frag, xmlDocument } from '../../engines/office/xml.js';
import { escapeAttr, escapeText, xmlSafe } from '../../engines/xml-escape.js';
import { odtText } from '../../engines/office/odt-common.js';
import { HOSTILE_STRINGS } from '../fixtures/documents.js';

const INJECTIONS = ['</p><evil/>', '<![CDATA[x]]>', ']]>', '&amp; &lt;', '&#0; &#x1;', '"\' quote', '<?xml version="1.0"?>', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e;'];
const ALL = [...HOSTILE_STRINGS, ...INJECTIONS, 'tab\tnewline\ncr\r', 'a\u0000b\u0001c\u0008d\u000be\u001ff\ufffeg\uffffh', 'lone \ud800 surrogate \udc00 end', 'astral 𝔸 🎉'];

/** Python's expat parses the document and prints the text of <t> and the value of attribute a, as JSON. */
function expat(xml: string): { text: string; attr: string } {
  const script = 'import sys, json, xml.dom.minidom as m\nd = m.parseString(sys.stdin.buffer.read())\nt = d.documentElement\nprint(json.dumps({"text": "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE), "attr": t.getAttribute("a")}))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { input: xml, encoding: 'utf8' })) as { text: string; attr: string };
}

test('every hostile string survives as text and as an attribute value, exactly, minus the characters XML 1.0 cannot carry', () => {
  for (const s of ALL) {
    const xml = xmlDocument(el('t', { a: s }, s));
    assert.is(XMLValidator.validate(xml), true, `well-formed for ${JSON.stringify(s)}`);
    const back = expat(xml);
    // With the u flag, [\ud800-\udfff] matches only lone surrogates: a pair is one astral code point.
    const expected = s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[\ud800-\udfff]/gu, '');
    // expat normalises CR in text content to LF (XML end-of-line handling); attributes keep it as &#13;.
    assert.is(back.text, expected.replace(/\r\n?/g, '\n'), `text of ${JSON.stringify(s)}`);
    assert.is(back.attr, expected, `attribute of ${JSON.stringify(s)}`);
  }
});

test('escaping covers the markup characters, and the characters XML cannot hold are dropped', () => {
  assert.is(escapeText('a<b>&c'), 'a&lt;b&gt;&amp;c');
  assert.is(escapeAttr('"<&>\t\n\r'), '&quot;&lt;&amp;&gt;&#9;&#10;&#13;');
  assert.is(xmlSafe('x\u0000\u0007\ud800y\ufffe'), 'xy');
  assert.is(xmlSafe('🎉'), '🎉');
});

test('element and attribute names are checked, so a wrong name fails loudly instead of writing a corrupt file', () => {
  assert.throws(() => el('text:p evil="1"'), /invalid XML name/);
  assert.throws(() => el('p', { 'a b': 'x' }), /invalid XML name/);
  assert.throws(() => el('<p>'), /invalid XML name/);
});

test('children: nested arrays flatten, null/false/undefined are skipped, empty elements self-close, null attributes are left out', () => {
  const xml = el('r', { keep: 'v', skip: null, no: false, n: 3 }, ['a', [null, el('b'), false, undefined, 2]], frag('c', el('d', null, 'e')));
  assert.is(xml.markup, '<r keep="v" n="3">a<b/>2c<d>e</d></r>');
  const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml.markup);
  assert.is(parsed.r['@_keep'], 'v');
});

test('ODF text keeps every space, tab and line break: runs of spaces and leading spaces become text:s', () => {
  const render = (s: string) => el('p', null, odtText(s)).markup;
  assert.is(render('a b'), '<p>a b</p>');
  assert.is(render('a   b'), '<p>a <text:s text:c="2"/>b</p>');
  assert.is(render(' lead'), '<p><text:s/>lead</p>');
  assert.is(render('    four'), '<p><text:s text:c="4"/>four</p>');
  assert.is(render('x\ty\nz\r\nw'), '<p>x<text:tab/>y<text:line-break/>z<text:line-break/>w</p>');
  assert.is(render('a\n b'), '<p>a<text:line-break/><text:s/>b</p>');
  assert.is(render('<&>'), '<p>&lt;&amp;&gt;</p>');
});

test.run();
