// Converts LaTeX math to Typst math (tex2typst), then refuses any result that could run code or reach files when Typst evaluates it.
import { createRequire } from 'node:module';

type Tex2Typst = typeof import('tex2typst');
let loaded: Tex2Typst | undefined;
/**
 * tex2typst, loaded on first use (`require` of an ES module, Node ≥ 20.19): loading it is about 20 ms of
 * CPU, paid by every new render thread (a recycle starts two), and most documents have no math.
 */
function tex(): Tex2Typst {
  return (loaded ??= createRequire(import.meta.url)('tex2typst') as Tex2Typst);
}

export type LatexToTypstResult = { ok: true; typst: string } | { ok: false; message: string };

/** How a text-mode command shows its argument; the `op` kinds make an operator name such as argmax. */
type TextKind = 'plain' | 'bold' | 'italic' | 'sans' | 'mono' | 'op' | 'op-limits';

const TEXT_COMMANDS: Record<string, TextKind> = {
  text: 'plain', textrm: 'plain', textnormal: 'plain', textup: 'plain', mbox: 'plain',
  textbf: 'bold', textit: 'italic', emph: 'italic', textsl: 'italic', textsf: 'sans', texttt: 'mono',
  operatorname: 'op', 'operatorname*': 'op-limits',
};

/** Symbols written as commands inside text arguments. Any other command there is shown literally. */
const TEXT_SYMBOLS: Record<string, string> = {
  textbackslash: '\\', textasciitilde: '~', textasciicircum: '^', textbar: '|', textless: '<', textgreater: '>',
  ldots: '…', dots: '…', textellipsis: '…', textendash: '–', textemdash: '—', S: '§', P: '¶', ss: 'ß', LaTeX: 'LaTeX', TeX: 'TeX',
};

/** Delimiter sizing and limit placement hints, dropped: Typst sizes delimiters itself (tex2typst knows none of them). */
const DROPPED_COMMANDS = new Set([
  'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr', 'biggl', 'biggr', 'Biggl', 'Biggr', 'bigm', 'Bigm', 'biggm', 'Biggm',
  'limits', 'nolimits',
]);

/** Environments tex2typst lacks, mapped to one it converts to the same layout. */
const ENVIRONMENT_ALIASES: Record<string, string> = {
  gather: 'aligned', 'gather*': 'aligned', gathered: 'aligned', split: 'aligned', multline: 'aligned', 'multline*': 'aligned',
  equation: 'aligned', 'equation*': 'aligned', smallmatrix: 'matrix',
};

/** Common commands tex2typst's strict mode does not know, as TeX it does know. */
const TEX_MACROS: Record<string, string> = {
  ...Object.fromEntries(['exp', 'deg', 'hom', 'ker', 'arg', 'lg', 'sinh', 'cosh', 'tanh', 'coth', 'arcsin', 'arccos', 'arctan'].map((n) => [`\\${n}`, `\\operatorname{${n}}`])),
  ...Object.fromEntries(['max', 'min', 'sup', 'inf', 'det', 'gcd', 'Pr'].map((n) => [`\\${n}`, `\\operatorname*{${n}}`])),
  '\\liminf': '\\operatorname*{lim inf}', '\\limsup': '\\operatorname*{lim sup}',
  '\\lvert': '|', '\\rvert': '|', '\\lVert': '\\|', '\\rVert': '\\|', '\\cfrac': '\\frac',
  '\\dotsb': '\\cdots', '\\dotsm': '\\cdots', '\\dotsi': '\\cdots', '\\dotsc': '\\ldots', '\\dotso': '\\ldots',
  '\\impliedby': '\\Longleftarrow', '\\LaTeX': '\\text{LaTeX}', '\\TeX': '\\text{TeX}',
};

/** A table lookup that ignores Object.prototype (a command named \constructor is no table entry). */
function own<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Characters tex2typst cannot read, with what to write instead. */
const FORBIDDEN_CHARACTERS: Record<string, string> = {
  '#': 'write \\# for a literal #',
  $: 'give the formula without surrounding $, and write \\$ for a literal $',
  '"': 'write \\text{"} for a quotation mark',
  '@': 'write \\text{@} for a literal @',
  '`': 'write \\text{`} for a literal backtick',
};

/**
 * Converts LaTeX math (without surrounding $) to Typst math markup that is safe for
 * `eval(typst, mode: "math")`: text arguments become escaped Typst strings, and the result is refused
 * unless every construct in it is on the allow-list of {@link checkTypstMath}.
 */
export function latexToTypst(latex: string): LatexToTypstResult {
  const prepared = prepareLatex(latex);
  if ('error' in prepared) return { ok: false, message: prepared.error };
  let typst: string;
  try {
    typst = tex().tex2typst(prepared.latex, { nonStrict: false, customTexMacros: TEX_MACROS });
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, message: 'LaTeX not supported: the formula is nested too deeply' };
    return { ok: false, message: `LaTeX not supported: ${err instanceof Error ? err.message : String(err)}` };
  }
  // One pass, so text already put back is never searched for placeholders.
  const placed = new Set<number>();
  typst = typst.replace(new RegExp(`"${prepared.marker}(\\d+)z"`, 'g'), (match, index: string) => {
    const text = prepared.texts[Number(index)];
    if (text === undefined) return match;
    placed.add(Number(index));
    return textMarkup(text.kind, typstString(text.text));
  });
  if (placed.size !== prepared.texts.length) return { ok: false, message: 'LaTeX not supported: a text argument could not be placed in the formula' };
  const refusal = checkTypstMath(typst);
  return refusal === null ? { ok: true, typst } : { ok: false, message: refusal };
}

function textMarkup(kind: TextKind, str: string): string {
  switch (kind) {
    case 'plain': case 'op': case 'op-limits': return str; // the op( … ) call is tex2typst's
    default: return `${kind}(${str})`;
  }
}

/** A Typst string literal. Typst has no \b, \f or \uXXXX escapes, so JSON.stringify will not do. */
export function typstString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

// ---------------------------------------------------------------- LaTeX side

interface PreparedLatex { latex: string; texts: { kind: TextKind; text: string }[]; marker: string }

/**
 * Rewrites the LaTeX before tex2typst sees it: strips comments, refuses characters it cannot read,
 * renames environments and drops sizing hints. Each text argument (\text, \operatorname, …) is read
 * here with proper brace matching and replaced by a letters-only placeholder, because tex2typst copies
 * text unescaped between quotes (`\text{"}` would give `"""`); the placeholder later becomes an
 * escaped Typst string.
 */
function prepareLatex(latex: string): PreparedLatex | { error: string } {
  let marker = 'qtx';
  while (latex.includes(marker)) marker += 'q';
  const texts: PreparedLatex['texts'] = [];
  let out = '';
  let i = 0;
  while (i < latex.length) {
    const c = latex[i]!;
    if (c === '%') { i = skipComment(latex, i); continue; }
    const forbidden = own(FORBIDDEN_CHARACTERS, c);
    if (forbidden) return { error: `unexpected ${JSON.stringify(c)} at position ${i + 1}: ${forbidden}` };
    if (c !== '\\') { out += c; i++; continue; }
    const next = latex[i + 1];
    if (next === undefined || !/[A-Za-z]/.test(next)) {
      const forbiddenEscape = next === '#' || next === '$' || next === undefined ? undefined : own(FORBIDDEN_CHARACTERS, next);
      if (forbiddenEscape) return { error: `unexpected "\\${next}" at position ${i + 1}: ${forbiddenEscape}` };
      out += c + (next ?? '');
      i += 2;
      continue;
    }
    let word = matchAt(/[A-Za-z]+/y, latex, i + 1)!;
    let end = i + 1 + word.length;
    if (word === 'operatorname' && latex[end] === '*') { word += '*'; end++; }
    const kind = own(TEXT_COMMANDS, word);
    if (kind) {
      const arg = readTextArgument(latex, end, word);
      if ('error' in arg) return arg;
      const command = kind === 'op' ? 'operatorname' : kind === 'op-limits' ? 'operatorname*' : 'text';
      out += `\\${command}{${marker}${texts.length}z}`;
      texts.push({ kind, text: arg.text });
      i = arg.end;
    } else if (DROPPED_COMMANDS.has(word)) {
      out += ' ';
      i = end;
    } else if (word === 'begin' || word === 'end') {
      const env = /\s*\{([^{}]*)\}/y;
      env.lastIndex = end;
      const m = env.exec(latex);
      const name = m ? m[1]!.trim() : null;
      out += name === null ? `\\${word}` : `\\${word}{${own(ENVIRONMENT_ALIASES, name) ?? name}}`;
      i = m ? env.lastIndex : end;
    } else {
      out += `\\${word}`;
      i = end;
    }
  }
  return { latex: out, texts, marker };
}

/** A LaTeX comment runs to the end of the line and takes the line break with it. */
function skipComment(s: string, i: number): number {
  const eol = s.indexOf('\n', i);
  return eol === -1 ? s.length : eol + 1;
}

/** Reads the argument of a text command at `start` as plain text: a {…} group, a command or one character. */
function readTextArgument(s: string, start: number, command: string): { text: string; end: number } | { error: string } {
  let i = start;
  while (i < s.length && /\s/.test(s[i]!)) i++;
  if (i >= s.length) return { error: `\\${command} needs an argument, e.g. \\${command}{…}` };
  if (s[i] !== '{') {
    if (s[i] === '}') return { error: `\\${command} needs an argument, e.g. \\${command}{…}` };
    const one = matchAt(/\\(?:[A-Za-z]+|[^A-Za-z]?)|[^]/uy, s, i)!;
    return { text: textModeChunk(one), end: i + one.length };
  }
  let depth = 1;
  let raw = '';
  i++;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '%') { i = skipComment(s, i); continue; }
    if (c === '\\' && i + 1 < s.length) {
      const cs = matchAt(/\\(?:[A-Za-z]+|[^A-Za-z])/uy, s, i)!;
      raw += cs;
      i += cs.length;
      continue;
    }
    if (c === '{') depth++;
    if (c === '}' && --depth === 0) return { text: textModeChunk(raw), end: i + 1 };
    raw += c;
    i++;
  }
  return { error: `\\${command}{ at position ${start - command.length} is not closed with }` };
}

/** LaTeX text-mode content (comments already removed) as the characters it shows. */
function textModeChunk(raw: string): string {
  let text = '';
  const token = /\\([A-Za-z]+)\s*|\\([^A-Za-z])|([{}])|(~)|(\s+)|([^])/gu;
  for (const m of raw.matchAll(token)) {
    const [, word, symbol, brace, tilde, space, other] = m;
    if (word !== undefined) text += own(TEXT_SYMBOLS, word) ?? (own(TEXT_COMMANDS, word) ? '' : `\\${word}`);
    else if (symbol !== undefined) text += symbol === ',' ? '\u2009' : symbol === '\\' || /\s|[;:]/.test(symbol) ? ' ' : symbol === '!' ? '' : symbol;
    else if (brace !== undefined) continue; // grouping only
    else if (tilde !== undefined) text += '\u00a0';
    else if (space !== undefined) text += ' ';
    else text += other;
  }
  return text.replace(/ {2,}/g, ' ');
}

// ---------------------------------------------------------------- Typst side

/** Math functions tex2typst emits (its symbol names cover the rest) and Typst's predefined operators. */
const MATH_FUNCTIONS = [
  'frac', 'sqrt', 'root', 'binom', 'vec', 'mat', 'cases', 'abs', 'norm', 'floor', 'ceil', 'round', 'lr', 'mid', 'op', 'limits', 'scripts',
  'attach', 'class', 'upright', 'italic', 'bold', 'cal', 'scr', 'frak', 'bb', 'mono', 'sans', 'serif', 'display', 'inline', 'script',
  'sscript', 'cancel', 'accent', 'overbrace', 'underbrace', 'overbracket', 'underbracket', 'overparen', 'underparen', 'overline',
  'underline', 'overshell', 'undershell', 'primes', 'hat', 'tilde', 'macron', 'dot', 'arrow', 'breve', 'acute', 'grave', 'circle', 'check',
  'arccos', 'arcsin', 'arctan', 'arg', 'cos', 'cosh', 'cot', 'coth', 'csc', 'csch', 'ctg', 'deg', 'det', 'dim', 'exp', 'gcd', 'lcm', 'hom',
  'id', 'im', 'inf', 'ker', 'lg', 'lim', 'liminf', 'limsup', 'ln', 'log', 'max', 'min', 'mod', 'Pr', 'sec', 'sech', 'sin', 'sinc', 'sinh',
  'sup', 'tan', 'tanh', 'tg', 'dif', 'Dif',
];

/**
 * Names that must never be looked up, even if a symbol table lists them: in math mode `std` reaches the
 * whole standard library (`std.read(…)` reads files), and the rest are file, code or document functions.
 */
export const DENIED_IDENTIFIERS = new Set([
  'std', 'sys', 'sym', 'math', 'read', 'image', 'json', 'yaml', 'toml', 'csv', 'xml', 'cbor', 'plugin', 'eval', 'include', 'import',
  'bibliography', 'cite', 'ref', 'label', 'link', 'query', 'state', 'counter', 'metadata', 'selector', 'locate', 'here', 'context',
  'panic', 'assert', 'raw', 'figure', 'heading', 'document', 'page', 'text', 'bytes', 'str', 'datetime', 'place', 'pagebreak',
]);

let allowed: ReadonlySet<string> | undefined;
/** First segments of the names the result may use: every symbol tex2typst can emit, plus the math functions. */
export function allowedIdentifiers(): ReadonlySet<string> {
  return (allowed ??= new Set(
    [...tex().symbolMap.values(), ...MATH_FUNCTIONS]
      .filter((name) => /^[A-Za-z][A-Za-z0-9]*(\.[a-z]+)*$/.test(name))
      .map((name) => name.split('.')[0]!)
      .filter((root) => !DENIED_IDENTIFIERS.has(root)),
  ));
}

/** Named arguments tex2typst writes into calls: mat(delim: …, augment: …, align: …), op(…, limits: …). */
const NAMED_ARGUMENTS = new Set(['delim', 'augment', 'align', 'limits']);

/** Typst's named colors, the only fills `\textcolor` may use. */
const COLORS = 'black|gray|silver|white|navy|blue|aqua|teal|eastern|purple|fuchsia|maroon|red|orange|yellow|olive|green|lime';

/** After an embedded expression: anything that would continue it (field, call, trailing content block, longer name). */
const END_OF_CODE = String.raw`(?![\p{XID_Continue}\-.(\[])`;

/** The only `#` code tex2typst writes, each complete: none of them reads data or runs anything user-chosen. */
const HASH_FORMS = [
  new RegExp(String.raw`#(?:none|auto|true|false|left|center|right)${END_OF_CODE}`, 'uy'), // mat(delim: #none, align: #center), op(limits: #true)
  new RegExp(String.raw`#\d{1,3}${END_OF_CODE}`, 'uy'), // mat(augment: #1)
  new RegExp(String.raw`#\(vline: \(\d{1,3}(?:, \d{1,3})*\)\)${END_OF_CODE}`, 'uy'), // mat(augment: #(vline: (1, 2)))
  new RegExp(String.raw`#h\((?:-math\.thin\.amount|-?\d{1,4}(?:\.\d{1,4})?(?:pt|mm|cm|in|em))\)${END_OF_CODE}`, 'uy'), // \! and \hspace{…}
];
const TEXT_COLOR_OPEN = new RegExp(String.raw`#text\(fill: (?:${COLORS})\)\[\$`, 'uy'); // \textcolor{red}{x} → #text(fill: red)[$x$]
const TEXT_COLOR_CLOSE = new RegExp(String.raw`\$\]${END_OF_CODE}`, 'uy');
const MATH_IDENT = /\p{XID_Start}(?:(?!_)\p{XID_Continue})*/uy; // Typst's math identifiers: no `_` (that is a subscript)
const FIELDS = /(?:\.\p{XID_Start}(?:(?!_)\p{XID_Continue})*)*/uy;
const UNICODE_ESCAPE = /\\u\{[0-9A-Fa-f]{1,6}\}/y;

function matchAt(re: RegExp, s: string, i: number): string | null {
  re.lastIndex = i;
  const m = re.exec(s);
  return m ? m[0] : null;
}

/**
 * Returns why the Typst math is refused, or null when it may be evaluated. It mirrors Typst's math
 * lexer and allows only: text, numbers, escapes, operators, string literals, identifiers whose first
 * segment is on {@link allowedIdentifiers} (calls included), the named arguments tex2typst writes, and
 * the few complete `#` forms in {@link HASH_FORMS}. Everything else is refused with the construct
 * named: other `#` code, `$`, comments, `@` references, `<label>`s and backticks.
 */
export function checkTypstMath(typst: string): string | null {
  const openColors: number[] = []; // offsets of the #text(fill: …)[$ still open
  const refuse = (i: number, why: string) => {
    const snippet = typst.slice(i, i + 24);
    return `refused ${JSON.stringify(snippet + (i + 24 < typst.length ? '…' : ''))} at offset ${i}: ${why}`;
  };
  let i = 0;
  while (i < typst.length) {
    const c = typst[i]!;
    const next = typst[i + 1];
    if (c === '#') {
      const colorOpen = matchAt(TEXT_COLOR_OPEN, typst, i);
      if (colorOpen) { openColors.push(i); i += colorOpen.length; continue; }
      const form = HASH_FORMS.map((re) => matchAt(re, typst, i)).find((m) => m !== null);
      if (!form) return refuse(i, typst.startsWith('#h(', i)
        ? 'only spacing in pt, mm, cm, in or em is allowed'
        : typst.startsWith('#text(', i) ? `only the named colors ${COLORS.replaceAll('|', ', ')} are allowed` : 'code (#) is not allowed in math');
      i += form.length;
    } else if (c === '$') {
      const close = openColors.length > 0 ? matchAt(TEXT_COLOR_CLOSE, typst, i) : null;
      if (!close) return refuse(i, '$ (an equation delimiter) is not allowed inside math');
      openColors.pop();
      i += close.length;
    } else if (c === '"') {
      let j = i + 1;
      while (j < typst.length && typst[j] !== '"') j += typst[j] === '\\' ? 2 : 1;
      if (j >= typst.length) return refuse(i, 'unterminated string');
      i = j + 1;
    } else if (c === '\\') {
      if (next === 'u' && typst[i + 2] === '{') {
        const esc = matchAt(UNICODE_ESCAPE, typst, i);
        if (!esc) return refuse(i, 'invalid unicode escape');
        i += esc.length;
      } else if (next === undefined || /\s/.test(next)) i += 1; // line break
      else i += 1 + String.fromCodePoint(typst.codePointAt(i + 1)!).length; // escaped character, shown literally
    } else if ((c === '/' && (next === '/' || next === '*')) || (c === '*' && next === '/')) {
      return refuse(i, 'comments are not allowed');
    } else if (c === '@') {
      return refuse(i, '@ (a reference) is not allowed');
    } else if (c === '`') {
      return refuse(i, 'backticks (raw text) are not allowed');
    } else if (c === '<' && next !== undefined && /[\p{XID_Start}_]/u.test(next)) {
      return refuse(i, '<…> (a label) is not allowed');
    } else {
      const ident = matchAt(MATH_IDENT, typst, i);
      if (ident === null || [...ident].length === 1) {
        i += String.fromCodePoint(typst.codePointAt(i)!).length; // one character of math text
        continue;
      }
      const fields = matchAt(FIELDS, typst, i + ident.length) ?? '';
      const isNamedArgument = fields === '' && typst[i + ident.length] === ':' && NAMED_ARGUMENTS.has(ident);
      if (!isNamedArgument && !allowedIdentifiers().has(ident)) return refuse(i, `"${ident}" is not an allowed math symbol or function`);
      i += ident.length + fields.length;
    }
  }
  return openColors.length > 0 ? refuse(openColors.at(-1)!, 'unclosed #text(…)[$ … $]') : null;
}
