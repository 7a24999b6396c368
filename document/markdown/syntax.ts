// The micromark extensions for Quire's inline references: {{variables}}, ${variables}, ~ABBR~, @[citations] and ^[inline footnotes].
//
// Each is a small text construct, tried before math (`$`) and strikethrough (`~`), so that the
// Markdown tokenizer, not a later pass over text, decides what is a reference: a backslash escape
// (`\@[x]`) is consumed by CommonMark before these constructs see the character, and stays literal.
import type { Code, Construct, Effects, Extension, State, TokenizeContext } from 'micromark-util-types';
import type { CompileContext, Extension as FromMarkdownExtension, Token } from 'mdast-util-from-markdown';
import type { Literal } from 'mdast';
import { parseCitationBody } from '../inline-markup.js';

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    quireVariable: 'quireVariable';
    quireAbbreviation: 'quireAbbreviation';
    quireCitation: 'quireCitation';
    quireFootnote: 'quireFootnote';
    quireFootnoteCode: 'quireFootnoteCode';
  }
}

/** A reference as written (`value` holds the source text, so `toString` of an image label keeps it). */
export interface QuireVariable extends Literal {
  type: 'quireVariable';
}
export interface QuireAbbreviation extends Literal {
  type: 'quireAbbreviation';
}
export interface QuireCitation extends Literal {
  type: 'quireCitation';
}
export interface QuireFootnote extends Literal {
  type: 'quireFootnote';
}

declare module 'mdast' {
  interface PhrasingContentMap {
    quireVariable: QuireVariable;
    quireAbbreviation: QuireAbbreviation;
    quireCitation: QuireCitation;
    quireFootnote: QuireFootnote;
  }
  interface RootContentMap {
    quireVariable: QuireVariable;
    quireAbbreviation: QuireAbbreviation;
    quireCitation: QuireCitation;
    quireFootnote: QuireFootnote;
  }
}

const isAlpha = (c: Code) => c !== null && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122));
const isDigit = (c: Code) => c !== null && c >= 48 && c <= 57;
const isKeyChar = (c: Code) => isAlpha(c) || isDigit(c) || c === 95 || c === 45; // A-Z a-z 0-9 _ -
const isNameChar = (c: Code) => isKeyChar(c) || c === 46; // plus .
const isSpace = (c: Code) => c === 32 || c === -2 || c === -1;
const isLineEnding = (c: Code) => c === -5 || c === -4 || c === -3;

/**
 * Citations and footnotes look ahead for their closing `]`. A source full of unclosed `@[` or `^[`
 * would make every one of them scan to the end (quadratic time): the look-ahead of one parse shares
 * a budget of characters, after which these constructs no longer start.
 */
const LOOKAHEAD_BUDGET = 2_000_000;
const budgets = new WeakMap<object, { left: number }>();
function budgetOf(context: TokenizeContext): { left: number } {
  // Keyed by the parser's list of definitions, which is new for every parse: a parser from
  // createFromMarkdown (see tree.ts) is used for many.
  let budget = budgets.get(context.parser.defined);
  if (!budget) budgets.set(context.parser.defined, (budget = { left: LOOKAHEAD_BUDGET }));
  return budget;
}

/** Longest citation body: keys and locators, not prose. */
const MAX_CITATION_BODY = 1000;

/** `{{ name }}` or `${name}`: the same names as VARIABLE in document/inline-markup.ts. */
const variable: Construct = { name: 'quireVariable', add: 'before', tokenize: tokenizeVariable };

function tokenizeVariable(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  let dollar = false;
  let size = 0;
  const start: State = (code) => {
    effects.enter('quireVariable');
    dollar = code === 36;
    effects.consume(code);
    return open;
  };
  const open: State = (code) => {
    if (code !== 123) return nok(code);
    effects.consume(code);
    return dollar ? nameStart : padBefore;
  };
  const padBefore: State = (code) => {
    if (isSpace(code)) {
      effects.consume(code);
      return padBefore;
    }
    return nameStart(code);
  };
  const nameStart: State = (code) => {
    if (!isAlpha(code) && code !== 95) return nok(code);
    effects.consume(code);
    size = 1;
    return name;
  };
  const name: State = (code) => {
    if (isNameChar(code) && size < 64) {
      effects.consume(code);
      size++;
      return name;
    }
    if (dollar) return code === 125 ? close(code) : nok(code);
    return padAfter(code);
  };
  const padAfter: State = (code) => {
    if (isSpace(code)) {
      effects.consume(code);
      return padAfter;
    }
    if (code !== 125) return nok(code);
    effects.consume(code);
    return close;
  };
  const close: State = (code) => {
    if (code !== 125) return nok(code);
    effects.consume(code);
    effects.exit('quireVariable');
    return ok;
  };
  return start;
}

/** `~KEY~`: 1 to 32 of A-Z a-z 0-9 _ - between single tildes. */
const abbreviation: Construct = { name: 'quireAbbreviation', add: 'before', tokenize: tokenizeAbbreviation };

function tokenizeAbbreviation(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  let size = 0;
  const key: State = (code) => {
    if (isKeyChar(code) && size < 32) {
      effects.consume(code);
      size++;
      return key;
    }
    if (code !== 126 || size === 0) return nok(code);
    effects.consume(code);
    effects.exit('quireAbbreviation');
    return ok;
  };
  return (code) => {
    effects.enter('quireAbbreviation');
    effects.consume(code);
    return key;
  };
}

/** `@[key]`, `@[key, p. 12]`, `@[a; b, ch. 3]` on one line; a body that names no usable key is not a citation. */
const citation: Construct = { name: 'quireCitation', add: 'before', tokenize: tokenizeCitation };

function tokenizeCitation(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  const budget = budgetOf(this);
  let depth = 0;
  let body = '';
  const open: State = (code) => {
    if (code !== 91) return nok(code);
    effects.consume(code);
    return inside;
  };
  const inside: State = (code) => {
    if (code === null || isLineEnding(code) || body.length > MAX_CITATION_BODY || --budget.left < 0) return nok(code);
    if (code === 92) {
      effects.consume(code);
      body += '\\';
      return escaped;
    }
    if (code === 93 && depth === 0) {
      if (!parseCitationBody(body)) return nok(code);
      effects.consume(code);
      effects.exit('quireCitation');
      return ok;
    }
    if (code === 91) depth++;
    if (code === 93) depth--;
    effects.consume(code);
    body += code < 0 ? ' ' : String.fromCharCode(code);
    return inside;
  };
  const escaped: State = (code) => {
    if (code === null || isLineEnding(code)) return nok(code);
    effects.consume(code);
    body += code < 0 ? ' ' : String.fromCharCode(code);
    return inside;
  };
  return (code) => {
    effects.enter('quireCitation');
    effects.consume(code);
    return open;
  };
}

/** `^[…]`: an inline footnote; its content (balanced brackets, escapes and code spans skipped) is parsed again as inline Markdown. */
const inlineFootnote: Construct = { name: 'quireFootnote', add: 'before', tokenize: tokenizeFootnote };

function tokenizeFootnote(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  const budget = budgetOf(this);
  let depth = 0;
  const open: State = (code) => {
    if (code !== 91) return nok(code);
    effects.consume(code);
    return inside;
  };
  const inside: State = (code) => {
    if (code === null || --budget.left < 0) return nok(code);
    if (code === 92) {
      effects.consume(code);
      return escaped;
    }
    if (code === 96) return effects.attempt(codeSpanAhead, inside, backticks)(code);
    if (code === 93) {
      effects.consume(code);
      if (depth === 0) {
        effects.exit('quireFootnote');
        return ok;
      }
      depth--;
      return inside;
    }
    if (code === 91) depth++;
    effects.consume(code);
    return inside;
  };
  const escaped: State = (code) => {
    if (code === null) return nok(code);
    effects.consume(code);
    return inside;
  };
  // A backtick run without its closing run is plain text.
  const backticks: State = (code) => {
    if (code === 96) {
      effects.consume(code);
      return backticks;
    }
    return inside(code);
  };
  return (code) => {
    effects.enter('quireFootnote');
    effects.consume(code);
    return open;
  };
}

/** A code span inside a footnote: a run of n backticks up to the next run of exactly n. */
const codeSpanAhead: Construct = {
  name: 'quireFootnoteCode',
  partial: true,
  tokenize(effects, ok, nok) {
    let open = 0;
    let run = 0;
    const sequence: State = (code) => {
      if (code === 96) {
        effects.consume(code);
        open++;
        return sequence;
      }
      return body(code);
    };
    const budget = budgetOf(this);
    const body: State = (code) => {
      if (code === null || --budget.left < 0) return nok(code);
      if (code === 96) {
        run = 0;
        return closing(code);
      }
      effects.consume(code);
      return body;
    };
    const closing: State = (code) => {
      if (code === 96) {
        effects.consume(code);
        run++;
        return closing;
      }
      if (run === open) {
        effects.exit('quireFootnoteCode');
        return ok(code);
      }
      return body(code);
    };
    return (code) => {
      effects.enter('quireFootnoteCode');
      return sequence(code);
    };
  },
};

/** The micromark syntax extension. */
export const quireSyntax: Extension = {
  text: {
    123: variable, // {
    36: variable, // $
    126: abbreviation, // ~
    64: citation, // @
    94: inlineFootnote, // ^
  },
};

function enterLiteral(type: 'quireVariable' | 'quireAbbreviation' | 'quireCitation' | 'quireFootnote') {
  return function (this: CompileContext, token: Token) {
    this.enter({ type, value: '' }, token);
  };
}

function exitLiteral(this: CompileContext, token: Token) {
  const node = this.stack[this.stack.length - 1] as Literal;
  node.value = this.sliceSerialize(token);
  this.exit(token);
}

/** The mdast-util-from-markdown extension: one literal node a reference, holding its source. */
export const quireFromMarkdown: FromMarkdownExtension = {
  enter: {
    quireVariable: enterLiteral('quireVariable'),
    quireAbbreviation: enterLiteral('quireAbbreviation'),
    quireCitation: enterLiteral('quireCitation'),
    quireFootnote: enterLiteral('quireFootnote'),
  },
  exit: { quireVariable: exitLiteral, quireAbbreviation: exitLiteral, quireCitation: exitLiteral, quireFootnote: exitLiteral },
};
