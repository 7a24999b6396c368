// LaTeX → Typst math: real formulas render through Typst (read back with pdftotext), and hostile input never runs code or reads a file.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import { allowedIdentifiers, DENIED_IDENTIFIERS, checkTypstMath, latexToTypst, typstString } from '../../engines/typst/latex-to-typst.js';

// A virtual project whose /etc/passwd holds a sentinel: any read that gets through shows up in the PDF text.
const ROOT = '/quire-math-test';
const SENTINEL = 'root:x:0:0:QUIRE-SENTINEL';
const MAIN = `${ROOT}/main.typ`;
const compiler = NodeCompiler.create({ workspace: ROOT });
compiler.mapShadow(`${ROOT}/etc/passwd`, Buffer.from(SENTINEL));
compiler.addSource(MAIN, '#set page(width: 40cm, height: auto, margin: 1cm)\n#let d = json("/data.json")\n$ #eval(d.math, mode: "math") $\n');

/** Compiles the Typst math as data through eval(…, mode: "math") and returns the PDF's text, or the compile error. */
function render(math: string): { text: string } | { error: string } {
  compiler.mapShadow(`${ROOT}/data.json`, Buffer.from(JSON.stringify({ math })));
  try {
    const pdf = compiler.pdf({ mainFilePath: MAIN });
    return { text: execFileSync('pdftotext', ['-q', '-', '-'], { input: pdf, encoding: 'utf8' }) };
  } catch (err) {
    return { error: String((err as { code?: unknown }).code ?? err) };
  } finally {
    compiler.evictCache(10);
  }
}

/** PDF text with math alphanumerics folded to plain letters (𝑥 → x) and whitespace removed. */
const flat = (text: string) => text.normalize('NFKC').replace(/\s+/g, '');

function renderLatex(latex: string): string {
  const converted = latexToTypst(latex);
  if (!converted.ok) throw new Error(`${latex} was refused: ${converted.message}`);
  const out = render(converted.typst);
  if ('error' in out) throw new Error(`${latex} → ${converted.typst} did not compile: ${out.error}`);
  return out.text;
}

test('the sentinel file is readable by code in the test project, so a leaked read would be seen', () => {
  compiler.mapShadow(`${ROOT}/data.json`, Buffer.from('{}'));
  compiler.addSource(`${ROOT}/probe.typ`, '#read("/etc/passwd")');
  const pdf = compiler.pdf({ mainFilePath: `${ROOT}/probe.typ` });
  assert.ok(execFileSync('pdftotext', ['-q', '-', '-'], { input: pdf, encoding: 'utf8' }).includes(SENTINEL));
});

// [LaTeX, text the PDF must contain once folded with `flat`]
const CORPUS: [string, string][] = [
  [String.raw`\frac{a}{b} + \dfrac{x+1}{y}`, 'x+1'],
  [String.raw`\sum_{i=1}^{n} i^2`, '∑'],
  [String.raw`\int_0^\infty e^{-x}\,dx`, '∫'],
  [String.raw`\begin{pmatrix} a & b \\ c & d \end{pmatrix}`, 'ab'],
  [String.raw`\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}`, '[]'],
  [String.raw`\begin{vmatrix} p & q \end{vmatrix}`, 'pq'],
  [String.raw`\begin{array}{c|c} a & b \\ c & d \end{array}`, 'ab'],
  [String.raw`f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}`, 'otherwise'],
  [String.raw`\alpha \beta \Gamma \omega`, 'αβΓω'],
  [String.raw`\hat{x} + \bar{y} + \tilde{z} + \dot{a} + \vec{v} + \ddot{q} + \overline{AB}`, 'AB'],
  [String.raw`\text{hello world}`, 'helloworld'],
  [String.raw`\operatorname{argmax}_x f(x)`, 'argmax'],
  [String.raw`\operatorname*{arg\,min}_x f(x)`, 'arg'],
  [String.raw`\max_x f + \exp(x) + \liminf_n a_n + \det A`, 'liminf'],
  [String.raw`\mathrm{d}x + \mathrm{abc} + \mathbb{R} + \mathcal{L} + \mathbf{v}`, 'abc'],
  [String.raw`\left( \frac{a}{b} \right) \left\{ x \right. \left\| y \right\| \big( z \big)`, '{'],
  [String.raw`x_i^2 + a_{ij} + e^{i\pi} + x^{y^{z}}`, 'ij'],
  [String.raw`\begin{aligned} a &= b + c \\ d &= e \end{aligned}`, 'a=b+c'],
  [String.raw`\begin{gathered} p = q \\ r = s \end{gathered}`, 'r=s'],
  [String.raw`\sqrt[3]{x} + \sqrt{y} + \binom{n}{k} + \lim_{n\to\infty} a_n`, 'lim'],
  [String.raw`\text{a "quoted" \textbf{bold}, back\textbackslash{} \{x\} 100\% \#}`, 'a"quoted"bold,back\\{x}100%#'],
  [String.raw`\textbf{Bold} \textit{It} \texttt{mono}`, 'Bold'],
  [String.raw`\textcolor{red}{x + 1}`, 'x+1'],
  [String.raw`x \! y \, z \; w \quad v \hspace{1cm} u`, 'x'],
  [String.raw`a \leq b \neq c \approx d \to e \Rightarrow f`, '≤'],
  [String.raw`\text{مرحبا}`, 'مرحبا'],
  [String.raw`\text{\toString \constructor}`, '\\toString\\constructor'], // command names that are Object.prototype keys
  [String.raw`\text{q{t}x0z} + \text{"qtx1z"} + \operatorname{qtx}`, 'qtx0z+"qtx1z"+qtx'], // text that looks like the internal placeholders
  ['a + b % a comment with #read("/etc/passwd")', 'a+b'],
];

for (const [latex, shows] of CORPUS) {
  test(`converts and renders ${JSON.stringify(latex)}`, () => {
    const text = renderLatex(latex);
    assert.ok(flat(text).includes(shows), `${JSON.stringify(shows)} not in ${JSON.stringify(flat(text))}`);
  });
}

// Hostile input: either refused (null), or rendered showing the text given (literally escaped).
const HOSTILE: [string, string | null][] = [
  [String.raw`\text{#read("/etc/passwd")}`, '#read("/etc/passwd")'],
  [String.raw`x^{\text{#import "@preview/x:1.0.0"}}`, '#import"@preview/x:1.0.0"'],
  ['#read("/etc/passwd")', null],
  ['#import "@preview/x:1.0.0"', null],
  [String.raw`\#`, '#'],
  [String.raw`\# read("/etc/passwd")`, null],
  [String.raw`\# read`, '#read'],
  ['"', null],
  [String.raw`\text{"}`, '"'],
  [String.raw`\text{\" \\ \}}`, '"}'], // inside text, \" is shown as a quotation mark
  [String.raw`\operatorname{a"b\\c}`, 'a"b'],
  ['@x', null],
  ['<x>', '<x>'],
  ['`', null],
  [String.raw`\text{\`}`, '`'],
  ['//', '//'],
  ['/*', '/∗'],
  ['$', null],
  [String.raw`\$`, '$'],
  [']', ']'],
  [String.raw`\href{https://x.y}{z}`, null],
  [String.raw`\url{https://x.y}`, null],
  [String.raw`\input{/etc/passwd}`, null],
  [String.raw`\include{x}`, null],
  [String.raw`\hspace{1cm); #read("/etc/passwd"}`, null],
  [String.raw`\hspace{1ex}`, null],
  [String.raw`\textcolor{red); read(/etc/passwd}{x}`, null],
  [String.raw`\textcolor{cyan}{x}`, null],
  [String.raw`\LaTeX`, 'LaTeX'],
  [String.raw`\imageof`, null],
  [String.raw`\text{unclosed`, null],
  [String.raw`\frac{1}{`, null],
];

for (const [latex, shows] of HOSTILE) {
  test(`${shows === null ? 'refuses' : 'renders literally'} hostile input ${JSON.stringify(latex)}`, () => {
    const converted = latexToTypst(latex);
    if (shows === null) {
      assert.not.ok(converted.ok, `${latex} was accepted as ${converted.ok && converted.typst}`);
      assert.ok(!converted.ok && converted.message.length > 10);
      return;
    }
    const text = flat(renderLatex(latex));
    assert.ok(text.includes(shows), `${JSON.stringify(shows)} not in ${JSON.stringify(text)}`);
    assert.not.ok(text.includes('QUIRE-SENTINEL'));
  });
}

test('refusal messages name the offending construct and say what to write instead', () => {
  const message = (latex: string) => {
    const r = latexToTypst(latex);
    return r.ok ? '' : r.message;
  };
  assert.match(message('x + #read("/etc/passwd")'), /"#" at position 5: write \\# for a literal #/);
  assert.match(message('$x$'), /without surrounding \$/);
  assert.match(message(String.raw`\href{a}{b}`), /\\href/);
  assert.match(message(String.raw`\textcolor{cyan}{x}`), /named colors .*red/);
  assert.match(message(String.raw`\hspace{2ex}`), /pt, mm, cm, in or em/);
  assert.match(message(String.raw`\text{open`), /\\text\{ at position 1 is not closed/);
  assert.match(message('x^{'.repeat(3000) + 'y' + '}'.repeat(3000)), /nested too deeply/);
});

// Typst math written by hand, as if tex2typst had been fooled: the sanitiser alone must stop it.
const HOSTILE_TYPST: [string, RegExp][] = [
  ['#read("/etc/passwd")', /code \(#\)/],
  ['x + #eval("1")', /code \(#\)/],
  ['#import "@preview/x:1.0.0"', /code \(#\)/],
  ['#set text(red)', /code \(#\)/],
  ['#show: x => x', /code \(#\)/],
  ['#{1 + 1}', /code \(#\)/],
  ['#none.x', /code \(#\)/],
  ['#none[x]', /code \(#\)/],
  ['#center-x', /code \(#\)/],
  ['#1x', /code \(#\)/],
  ['#h(1cm); #read("/etc/passwd")', /code \(#\)/],
  ['#h(1cm)[#read("x")]', /spacing/],
  ['#h(1ex)', /spacing/],
  ['#text(fill: red)[$x$][#read("/etc/passwd")]', /\$/],
  ['#text(fill: red)[$x$ #read("/etc/passwd")]', /\$/],
  ['#text(fill: rgb("f00"))[$x$]', /named colors/],
  ['#text(fill: red)[$x', /unclosed/],
  ['std.read("/etc/passwd")', /"std"/],
  ['sys.inputs', /"sys"/],
  ['image("/etc/passwd")', /"image"/],
  ['read("/etc/passwd")', /"read"/],
  ['x2', /"x2"/],
  ['$ x $', /\$/],
  ['"unterminated', /unterminated string/],
  ['"a\\" #read(\\"/etc/passwd\\")', /unterminated string/],
  ['a // comment', /comments/],
  ['a /* comment */', /comments/],
  ['a */ b', /comments/],
  ['@ref', /reference/],
  ['<label>', /label/],
  ['`raw`', /backticks/],
  ['\\u{zz}', /unicode escape/],
];

for (const [typst, why] of HOSTILE_TYPST) {
  test(`the sanitiser refuses ${JSON.stringify(typst)}`, () => {
    const refusal = checkTypstMath(typst);
    assert.ok(refusal !== null, 'accepted');
    assert.match(refusal!, why);
    assert.match(refusal!, /^refused ".+" at offset \d+: /);
  });
}

test('the sanitiser accepts what tex2typst writes, and each accepted form compiles', () => {
  const accepted = [
    'mat(delim: #none, augment: #(vline: (1, 2)), align: #center, a, b, c; d, e, f)',
    'op("max", limits: #true)_x f', 'x #h(-math.thin.amount) y #h(1.5cm) z', '#text(fill: red)[$x + #text(fill: blue)[$y$]$]',
    'lr(\\{ x) + \\# + \\$ + \\u{41} + "a\\"b" + arrow.r.double + dots.h', 'a &= b \\ c &= d', 'RR + dif x + floor("")',
  ];
  for (const typst of accepted) {
    assert.is(checkTypstMath(typst), null, typst);
    const out = render(typst);
    assert.ok('text' in out, `${typst}: ${'error' in out ? out.error : ''}`);
  }
});

test('no denied name is on the allow-list, and the list holds symbols and math functions', () => {
  for (const name of DENIED_IDENTIFIERS) assert.not.ok(allowedIdentifiers().has(name), name);
  for (const name of ['alpha', 'arrow', 'frac', 'mat', 'cases', 'op', 'lr', 'upright', 'sum', 'integral']) assert.ok(allowedIdentifiers().has(name), name);
});

test('typstString escapes quotes, backslashes and control characters the Typst way', () => {
  assert.is(typstString('a"b\\c\nd\u0001'), '"a\\"b\\\\c\\nd\\u{1}"');
  const out = render(typstString('#read("/etc/passwd") \\ " $ ] @x <y>'));
  assert.ok('text' in out && flat(out.text).includes('#read("/etc/passwd")\\"$]@x<y>'));
});

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible input. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('random mixes of LaTeX and hostile pieces never reach the sentinel file', () => {
  const pieces = [
    '\\text{', '\\operatorname{', '\\textcolor{red}{', '\\hspace{', '\\frac{', '\\sqrt[', '{', '}', '[', ']', '(', ')', '"', '\\"', '#', '\\#', '$', '\\$',
    '@', '`', '/', '*', '<', '>', '\\\\', '&', '^', '_', '%', '\n', ' ', 'read', 'std', 'x', '1cm', ')', ';', ':', '.', ',', '\\alpha', '\\begin{cases}',
    '\\end{cases}', '\\left(', '\\right)', 'eval', '"/etc/passwd"', '\\u{41}', '\\', 'sys.inputs', '#read("/etc/passwd")', '\\mathrm{', '\\textbf{',
  ];
  const random = prng(20240521);
  let accepted = 0;
  for (let n = 0; n < 400; n++) {
    let latex = '';
    const length = 1 + Math.floor(random() * 12);
    for (let i = 0; i < length; i++) latex += pieces[Math.floor(random() * pieces.length)];
    const converted = latexToTypst(latex);
    if (!converted.ok) continue;
    accepted++;
    const out = render(converted.typst);
    if ('text' in out) assert.not.ok(out.text.includes('QUIRE-SENTINEL'), `${JSON.stringify(latex)} → ${converted.typst}`);
  }
  assert.ok(accepted > 20, `only ${accepted} random inputs were accepted; the mix tests too little`);
});

test.run();
