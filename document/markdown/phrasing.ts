// mdast inline content → the inline tree of document/inline-markup.ts, with a warning for what document JSON cannot hold.
import type { Nodes, PhrasingContent, RootContent } from 'mdast';
import { parseCitationBody, type Inline } from '../inline-markup.js';
import type { ParseContext } from './context.js';
import { mergeText, type FitOptions } from './inline-tree.js';
import { toMarkup } from './json-markup.js';
import { markdownTree } from './tree.js';

/** Deeper inline nesting than this is kept as plain text (CommonMark allows any depth; JSON readers need not). */
const MAX_INLINE_DEPTH = 32;

const VARIABLE = /^(?:\{\{[ \t]*([A-Za-z_][A-Za-z0-9_.-]{0,63})[ \t]*\}\}|\$\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\})$/;

export function phrasing(ctx: ParseContext, nodes: readonly PhrasingContent[], depth = 0): Inline[] {
  const out: Inline[] = [];
  for (const node of nodes) convert(ctx, node, out, depth);
  return mergeText(out);
}

/** Inline nodes → a JSON markup string, with a warning when emphasis had to be simplified. */
export function markup(ctx: ParseContext, nodes: Inline[], at: Nodes | null, options: FitOptions = {}): string {
  const result = toMarkup(nodes, options);
  if (result.simplified) ctx.warn('UNSUPPORTED_MARKDOWN', 'nested emphasis that document JSON cannot express was simplified', at);
  return result.markup;
}

function convert(ctx: ParseContext, node: PhrasingContent, out: Inline[], depth: number): void {
  if (depth > MAX_INLINE_DEPTH) {
    ctx.warn('LIMIT_EXCEEDED', `inline markup nests deeper than ${MAX_INLINE_DEPTH} levels; the rest is kept as plain text`, node);
    out.push({ t: 'text', v: plainText(node) });
    return;
  }
  switch (node.type) {
    case 'text':
      // A soft line break reads as a space; in document JSON a newline is a hard break.
      out.push({ t: 'text', v: node.value.replace(/[ \t]*(?:\r\n|\r|\n)[ \t]*/g, ' ') });
      break;
    case 'emphasis':
      out.push({ t: 'emph', c: phrasing(ctx, node.children, depth + 1) });
      break;
    case 'strong':
      out.push({ t: 'strong', c: phrasing(ctx, node.children, depth + 1) });
      break;
    case 'delete':
      ctx.warn('UNSUPPORTED_MARKDOWN', 'strikethrough (~~…~~) has no equivalent in document JSON; the text is kept without it', node);
      out.push(...phrasing(ctx, node.children, depth + 1));
      break;
    case 'inlineCode':
      out.push({ t: 'code', v: node.value });
      break;
    case 'inlineMath':
      out.push({ t: 'math', latex: node.value });
      break;
    case 'break':
      out.push({ t: 'br' });
      break;
    case 'link':
      link(ctx, node, node.url, node.children, out, depth);
      break;
    case 'linkReference': {
      const definition = ctx.definitions.get(node.identifier);
      if (definition) link(ctx, node, definition.url, node.children, out, depth);
      else out.push({ t: 'text', v: ctx.raw(node) });
      break;
    }
    case 'image':
    case 'imageReference':
      ctx.warn('UNSUPPORTED_MARKDOWN', 'an image inside a line of text is not supported (put it in a paragraph of its own); its alt text is kept', node);
      out.push({ t: 'text', v: node.alt ?? '' });
      break;
    case 'html':
      ctx.warn('RAW_HTML_IGNORED', `raw HTML is not passed through; "${clip(node.value)}" is kept as text`, node);
      out.push({ t: 'text', v: node.value });
      break;
    case 'footnoteReference': {
      const definition = ctx.footnotes.get(node.identifier);
      // A note that refers to itself (directly or not) is written as its label the second time.
      if (!definition || ctx.openFootnotes.has(node.identifier)) {
        out.push({ t: 'text', v: `[^${node.label ?? node.identifier}]` });
        break;
      }
      ctx.usedFootnotes.add(node.identifier);
      ctx.openFootnotes.add(node.identifier);
      out.push({ t: 'footnote', c: blocksToInline(ctx, definition.children, depth + 1) });
      ctx.openFootnotes.delete(node.identifier);
      break;
    }
    case 'quireVariable': {
      const m = VARIABLE.exec(node.value);
      out.push(m ? { t: 'var', name: (m[1] ?? m[2])! } : { t: 'text', v: node.value });
      break;
    }
    case 'quireAbbreviation':
      out.push({ t: 'abbr', key: node.value.slice(1, -1) });
      break;
    case 'quireCitation': {
      const items = parseCitationBody(node.value.slice(2, -1));
      out.push(items ? { t: 'cite', items } : { t: 'text', v: node.value });
      break;
    }
    case 'quireFootnote':
      out.push({ t: 'footnote', c: footnoteContent(ctx, node.value.slice(2, -1), depth + 1) });
      break;
    default:
      out.push({ t: 'text', v: plainText(node) });
  }
}

function link(ctx: ParseContext, node: Nodes, url: string, children: PhrasingContent[], out: Inline[], depth: number): void {
  const c = phrasing(ctx, children, depth + 1);
  if (url.startsWith('#') && url.length > 1) out.push({ t: 'ref', id: url.slice(1), c });
  else if (/^(?:https?:\/\/|mailto:)/i.test(url)) out.push({ t: 'link', url, c });
  else {
    ctx.warn('UNSUPPORTED_MARKDOWN', `the link target "${clip(url)}" is not an https://, http://, mailto: or #anchor link; the link text is kept without the link`, node);
    out.push(...c);
  }
}

/**
 * The content of `^[…]`, parsed again as inline Markdown. A `[` is put in front so that the content
 * sees the same punctuation before it as in its paragraph (and can never open a block).
 */
function footnoteContent(ctx: ParseContext, raw: string, depth: number): Inline[] {
  if (depth > MAX_INLINE_DEPTH) return [{ t: 'text', v: raw }];
  // Inline content has no blank line, so no point where a chunk could be cut.
  const tree = markdownTree(`[${raw}`, { chunked: false });
  const paragraph = tree.children[0];
  if (tree.children.length !== 1 || paragraph?.type !== 'paragraph') return [{ t: 'text', v: raw }];
  const children = paragraph.children.map((n) => stripPositions(n));
  const first = children[0];
  if (first?.type === 'text' && first.value.startsWith('[')) first.value = first.value.slice(1);
  return phrasing(ctx, children, depth);
}

function stripPositions<T extends Nodes>(node: T): T {
  delete node.position;
  if ('children' in node) for (const child of node.children) stripPositions(child);
  return node;
}

/** Block content where only inline content fits (footnote definitions, list items, quotes): blocks are separated by a blank line. */
export function blocksToInline(ctx: ParseContext, nodes: readonly RootContent[], depth: number, what = 'this place'): Inline[] {
  const out: Inline[] = [];
  const separate = () => {
    if (out.length) out.push({ t: 'br' }, { t: 'br' });
  };
  for (const node of nodes) {
    switch (node.type) {
      case 'paragraph':
      case 'heading':
        separate();
        out.push(...phrasing(ctx, node.children, depth + 1));
        break;
      case 'code':
        separate();
        ctx.warn('UNSUPPORTED_MARKDOWN', `a code block in ${what} is kept as inline code`, node);
        out.push({ t: 'code', v: node.value });
        break;
      case 'math':
        separate();
        out.push({ t: 'math', latex: node.value });
        break;
      case 'html':
        separate();
        ctx.warn('RAW_HTML_IGNORED', `raw HTML is not passed through; "${clip(node.value)}" is kept as text`, node);
        out.push({ t: 'text', v: node.value });
        break;
      case 'blockquote':
      case 'list':
      case 'listItem':
      case 'table':
      case 'tableRow':
      case 'tableCell':
        if (depth > MAX_INLINE_DEPTH) break;
        separate();
        ctx.warn('UNSUPPORTED_MARKDOWN', `a ${node.type === 'listItem' ? 'list' : node.type} in ${what} is kept as plain lines of text`, node);
        out.push(...blocksToInline(ctx, node.children as RootContent[], depth + 1, what));
        break;
      case 'leafDirective':
      case 'containerDirective':
        ctx.error('INVALID_DIRECTIVE', `the directive ::${node.name} is not allowed in ${what}`, node);
        break;
      case 'definition':
      case 'footnoteDefinition':
      case 'thematicBreak':
      case 'yaml':
        break;
      default:
        separate();
        out.push({ t: 'text', v: plainText(node) });
    }
  }
  return mergeText(out);
}

/** The text of a node, references as written. */
export function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('alt' in node && typeof node.alt === 'string') return node.alt;
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
  return '';
}

export function clip(text: string, max = 60): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
