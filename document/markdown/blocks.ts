// mdast blocks → document JSON elements: headings, paragraphs, images, lists, tables, quotes, code, charts, math and leaf directives.
import type { Blockquote, Code, Heading, List, ListItem as MdListItem, Nodes, Paragraph, PhrasingContent, RootContent, Text } from 'mdast';
import type { Math as MathNode } from 'mdast-util-math';
import { YamlText } from './yaml-text.js';
import type { Element, ListItem } from '../../contracts/document-json.js';
import type { Inline } from '../inline-markup.js';
import { parseAttributeList, readAttributes, type Attributes, type Kind } from './attributes.js';
import type { ParseContext } from './context.js';
import { leafDirective, snapshotBlock } from './directives.js';
import { mergeText } from './inline-tree.js';
import { blocksToInline, clip, markup, phrasing, plainText } from './phrasing.js';
import { table } from './tables.js';

/** Where converted elements go: the section being filled. */
export interface Sink {
  /** The path the next element will get. */
  nextPath(): string;
  push(element: Element, node: Nodes): void;
}

/** Converts a run of sibling blocks (a table may take the attribute paragraph after it). */
export function convertBlocks(ctx: ParseContext, nodes: readonly RootContent[], sink: Sink): void {
  for (let k = 0; k < nodes.length; k++) {
    const node = nodes[k]!;
    ctx.path = sink.nextPath();
    if (node.type === 'table') {
      const next = nodes[k + 1];
      const attributes = next?.type === 'paragraph' ? attributeParagraph(ctx, next) : null;
      if (attributes) k++;
      sink.push(table(ctx, node, attributes), node);
      continue;
    }
    for (const element of block(ctx, node)) sink.push(element, node);
  }
}

function block(ctx: ParseContext, node: RootContent): Element[] {
  switch (node.type) {
    case 'heading':
      return [heading(ctx, node)];
    case 'paragraph':
      return paragraph(ctx, node);
    case 'thematicBreak':
      return [{ type: 'divider' }];
    case 'blockquote':
      return [quote(ctx, node)];
    case 'list':
      return [list(ctx, node)];
    case 'code':
      return [code(ctx, node)];
    case 'math':
      return [math(ctx, node)];
    case 'html': {
      ctx.warn('RAW_HTML_IGNORED', `raw HTML is not passed through; "${clip(node.value)}" is kept as text`, node);
      return [{ type: 'text', text: markup(ctx, [{ t: 'text', v: node.value.replace(/\r?\n/g, ' ') }], node) }];
    }
    case 'leafDirective':
      return leafDirective(ctx, node);
    case 'containerDirective':
      if (node.name === 'block' || node.name === 'blockRef') return snapshotBlock(ctx, node, convertBlocks);
      ctx.error('INVALID_DIRECTIVE', node.name === 'page' || node.name === 'section' ? `:::${node.name} cannot be nested in another section; close the section first with :::` : `there is no container directive :::${node.name}; the containers are :::page, :::section and :::block`, node);
      return [];
    case 'definition':
    case 'footnoteDefinition':
    case 'yaml':
      return [];
    default:
      ctx.warn('UNSUPPORTED_MARKDOWN', `a ${node.type} is not supported here; its text is kept`, node);
      return [{ type: 'text', text: markup(ctx, [{ t: 'text', v: plainText(node) }], node) }];
  }
}

// ---------------------------------------------------------------- attribute lists

/** `{…}` alone in a paragraph of one line (the attribute paragraph of a table); null otherwise. */
export function attributeParagraph(ctx: ParseContext, node: Paragraph): Attributes | null {
  const raw = ctx.raw(node).replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  if (raw.includes('\n')) return null;
  const parsed = parseAttributeList(raw);
  if (!parsed) return null;
  if ('error' in parsed) {
    ctx.error('INVALID_ATTRIBUTE', `the attribute list ${clip(raw)} ${parsed.error}`, node);
    return new Map();
  }
  return parsed.attributes;
}

/**
 * Splits inline content at the start of a source line: [before, from that line on]. A text node
 * that spans lines is cut at its newline; null when another node spans the line start.
 */
function splitAtLine(children: readonly PhrasingContent[], line: number): [PhrasingContent[], PhrasingContent[]] | null {
  const before: PhrasingContent[] = [];
  const after: PhrasingContent[] = [];
  for (const child of children) {
    const start = child.position?.start.line ?? 0;
    const end = child.position?.end.line ?? 0;
    if (start >= line) after.push(child);
    else if (end < line || child.type === 'break') before.push(child);
    else if (child.type === 'text') {
      const lines = child.value.split('\n');
      const cut = line - start;
      const position = child.position!;
      before.push({ type: 'text', value: lines.slice(0, cut).join('\n'), position: { start: position.start, end: { line: line - 1, column: 1 } } });
      after.push({ type: 'text', value: lines.slice(cut).join('\n'), position: { start: { line, column: 1 }, end: position.end } });
    } else return null;
  }
  return [before, after];
}

/** The raw text of the last source line of a block (container markers and indentation removed). */
function lastLine(ctx: ParseContext, node: Nodes): { line: number; text: string } | null {
  const end = node.position?.end;
  if (!end || end.offset === undefined) return null;
  const text = ctx.source.slice(ctx.lineStart(end.line), end.offset).replace(/^[ \t>]*/, '');
  return { line: end.line, text };
}

/** A last line `{…}` in a paragraph of several lines: its attributes and the content before it. */
function trailingAttributeLine(ctx: ParseContext, node: Paragraph): { attributes: Attributes; children: PhrasingContent[] } | null {
  const last = lastLine(ctx, node);
  if (!last || last.line === node.position?.start.line) return null;
  const parsed = parseAttributeList(last.text);
  if (!parsed) return null;
  const split = splitAtLine(node.children, last.line);
  if (!split) return null;
  if ('error' in parsed) {
    ctx.error('INVALID_ATTRIBUTE', `the attribute list ${clip(last.text)} ${parsed.error}`, { line: last.line, column: 1 });
    return { attributes: new Map(), children: split[0] };
  }
  return { attributes: parsed.attributes, children: split[0] };
}

// ---------------------------------------------------------------- headings and paragraphs

const TEXT_ALIGN: Kind = 'string';

function heading(ctx: ParseContext, node: Heading): Element {
  const children = [...node.children];
  let attributes: Attributes = new Map();
  const last = children[children.length - 1];
  if (last?.type === 'text') {
    const raw = ctx.raw(last);
    const m = /(?:^|[ \t])(\{[^{}\n]*\})[ \t]*$/.exec(raw);
    if (m && last.value.endsWith(raw.slice(m.index).trimEnd())) {
      const parsed = parseAttributeList(m[1]!);
      if (parsed && 'error' in parsed) ctx.error('INVALID_ATTRIBUTE', `the heading attributes ${m[1]} ${parsed.error}`, last);
      if (parsed) {
        if ('attributes' in parsed) attributes = parsed.attributes;
        const keep = last.value.slice(0, last.value.length - raw.slice(m.index).trimEnd().length).replace(/[ \t]+$/, '');
        children[children.length - 1] = { ...last, value: keep };
      }
    }
  }
  const values = readAttributes(ctx, attributes, { id: 'string', align: TEXT_ALIGN }, 'a heading', node);
  const level = Math.min(6, Math.max(1, node.depth)) as 1 | 2 | 3 | 4 | 5 | 6;
  return { type: `h${level}`, text: markup(ctx, phrasing(ctx, children), node, { singleLine: true }), ...(values as object) } as Element;
}

const TEXT_STYLE_KEYS = ['bold', 'italic', 'fontSize', 'fontFamily', 'color'] as const;

function paragraph(ctx: ParseContext, node: Paragraph): Element[] {
  const images = imageParagraph(ctx, node);
  if (images) return images;
  const single = attributeParagraph(ctx, node);
  if (single) ctx.warn('INVALID_ATTRIBUTE', 'an attribute list on a line of its own applies only to the table just before it; it is kept as text', node);
  const trailing = single ? null : trailingAttributeLine(ctx, node);
  const children = trailing ? trailing.children : node.children;
  const element: Element = { type: 'text', text: markup(ctx, phrasing(ctx, children), node) };
  if (trailing) {
    const v = readAttributes(ctx, trailing.attributes, { align: TEXT_ALIGN, bold: 'boolean', italic: 'boolean', fontSize: 'number', fontFamily: 'string', color: 'string' }, 'a paragraph', node);
    if (v.align !== undefined) element.align = v.align as 'left';
    const style: Record<string, unknown> = {};
    for (const key of TEXT_STYLE_KEYS) if (v[key] !== undefined) style[key] = v[key];
    if (Object.keys(style).length) element.style = style;
  }
  return [element];
}

/** A paragraph of nothing but images, each optionally followed by `{…}`: one image element each. */
function imageParagraph(ctx: ParseContext, node: Paragraph): Element[] | null {
  const images = node.children.filter((c) => c.type === 'image' || c.type === 'imageReference');
  if (!images.length) return null;
  // Between and after the images only whitespace and attribute lists (read from the source).
  const gaps: string[] = [];
  let cursor = node.position?.start.offset ?? 0;
  for (const image of images) {
    gaps.push(ctx.source.slice(cursor, image.position?.start.offset ?? cursor));
    cursor = image.position?.end.offset ?? cursor;
  }
  gaps.push(ctx.source.slice(cursor, node.position?.end.offset ?? cursor));
  if (gaps[0]!.trim()) return null;
  const attributeTexts: string[] = [];
  for (const gap of gaps.slice(1)) {
    const m = /^[ \t]*(\{[^\n]*\})?[ \t]*(?:\r?\n[ \t>]*)?$/.exec(gap);
    if (!m) return null;
    attributeTexts.push(m[1] ?? '');
  }
  return images.map((image, i) => {
    let url = '';
    let title: string | null | undefined = null;
    if (image.type === 'image') {
      url = image.url;
      title = image.title;
    } else {
      const definition = ctx.definitions.get(image.identifier);
      url = definition?.url ?? '';
      title = definition?.title;
      if (!definition) ctx.error('INVALID_FIELD', `the image reference [${image.label ?? image.identifier}] has no definition`, image);
    }
    if (title) ctx.warn('UNSUPPORTED_MARKDOWN', `the image title "${clip(title)}" is ignored; give a caption with {caption="…"}`, image);
    const element: Record<string, unknown> = { type: 'image', src: url, alt: image.alt ?? '' };
    const text = attributeTexts[i]!;
    if (text) {
      const parsed = parseAttributeList(text);
      if (!parsed) ctx.error('INVALID_ATTRIBUTE', `cannot read the image attributes ${clip(text)}`, image);
      else if ('error' in parsed) ctx.error('INVALID_ATTRIBUTE', `the image attributes ${clip(text)} ${parsed.error}`, image);
      else Object.assign(element, readAttributes(ctx, parsed.attributes, { width: 'length', height: 'length', caption: 'string', id: 'string', align: 'string' }, 'an image', image));
    }
    return element as Element;
  });
}

// ---------------------------------------------------------------- quotes

function quote(ctx: ParseContext, node: Blockquote): Element {
  const children = [...node.children];
  const element: Record<string, unknown> = { type: 'quote' };
  let last = children[children.length - 1];
  const alone = last?.type === 'paragraph' ? attributeParagraph(ctx, last) : null;
  if (alone) {
    Object.assign(element, readAttributes(ctx, alone, { align: TEXT_ALIGN }, 'a quote', node));
    children.pop();
    last = children[children.length - 1];
  }
  if (last?.type === 'paragraph') {
    const trailing = alone ? null : trailingAttributeLine(ctx, last);
    if (trailing) {
      Object.assign(element, readAttributes(ctx, trailing.attributes, { align: TEXT_ALIGN }, 'a quote', node));
      last = { ...last, children: trailing.children, position: last.position && { ...last.position, end: { line: last.position.end.line - 1, column: 1 } } };
      children[children.length - 1] = last;
    }
    const attribution = quoteAttribution(ctx, last);
    if (attribution) {
      if (attribution.before.length) children[children.length - 1] = { ...last, children: attribution.before };
      else children.pop();
      element.attribution = markup(ctx, phrasing(ctx, attribution.after), node, { singleLine: true });
    }
  }
  const text = markup(ctx, blocksToInline(ctx, children, 0, 'a quote'), node);
  return { type: 'quote', text, ...element } as Element;
}

/** The last line of a quote's last paragraph when it starts with an em dash: `— Name`. */
function quoteAttribution(ctx: ParseContext, node: Paragraph): { before: PhrasingContent[]; after: PhrasingContent[] } | null {
  const end = node.position?.end;
  if (!end) return null;
  const text = ctx.source.slice(ctx.lineStart(end.line)).replace(/^[ \t>]*/, '');
  if (!text.startsWith('—')) return null;
  const split = splitAtLine(node.children, end.line);
  if (!split) return null;
  const [before, after] = split;
  const first = after[0];
  if (first?.type !== 'text' || !first.value.startsWith('—')) return null;
  after[0] = { type: 'text', value: first.value.slice(1).replace(/^[ \t]+/, '') } as Text;
  // The soft line break before the attribution belongs to neither part.
  const tail = before[before.length - 1];
  if (tail?.type === 'text') before[before.length - 1] = { ...tail, value: tail.value.replace(/[ \t\r\n]+$/, '') };
  return { before, after };
}

// ---------------------------------------------------------------- lists

const UNCHECKED = '☐ ';
const CHECKED = '☑ ';

function list(ctx: ParseContext, node: List): Element {
  const base = ctx.path;
  const items = node.children.map((item, i) => listItem(ctx, item, `${base}.items[${i}]`, node.ordered ?? false));
  const element: Record<string, unknown> = { type: 'list' };
  if (node.ordered) element.ordered = true;
  if (node.ordered && typeof node.start === 'number' && node.start !== 1) element.start = node.start;
  element.items = items;
  return element as Element;
}

function listItem(ctx: ParseContext, node: MdListItem, path: string, ordered: boolean): ListItem {
  ctx.mark(path, node);
  const content: RootContent[] = [];
  const nested: ListItem[] = [];
  for (const child of node.children) {
    if (child.type === 'list') {
      if ((child.ordered ?? false) !== ordered) ctx.warn('UNSUPPORTED_MARKDOWN', `a ${child.ordered ? 'numbered' : 'bulleted'} list inside a ${ordered ? 'numbered' : 'bulleted'} list takes the outer list's kind (document JSON has one kind a list)`, child);
      if (nested.length) ctx.warn('UNSUPPORTED_MARKDOWN', 'two sub-lists in one list item are joined into one', child);
      for (const item of child.children) nested.push(listItem(ctx, item, `${path}.items[${nested.length}]`, ordered));
    } else content.push(child);
  }
  let inline: Inline[] = blocksToInline(ctx, content, 0, 'a list item');
  if (node.checked === true || node.checked === false) inline = mergeText([{ t: 'text', v: node.checked ? CHECKED : UNCHECKED }, ...inline]);
  const text = markup(ctx, inline, node);
  return nested.length ? { text, items: nested } : text;
}

// ---------------------------------------------------------------- code, charts, math

/**
 * `{…}` in a fence's info string (after the language, or alone). The info is read from the source
 * with only backslash escapes decoded, so that character references are decoded once, by the
 * attribute list (mdast would have decoded them already, and split the info at the first space).
 */
function fenceAttributes(ctx: ParseContext, node: Code | MathNode): { language?: string; attributes: Attributes } {
  if (!node.meta && !(node.type === 'code' && node.lang)) return { attributes: new Map() };
  const first = ctx.raw(node).split(/\r?\n/)[0] ?? '';
  const info = (/^[ \t]*(?:`{3,}|~{3,}|\${2,})(.*)$/.exec(first)?.[1] ?? '').trim().replace(/\\([!-/:-@[-`{-~])/g, '$1');
  const m = /^([^\s{]+)?\s*([\s\S]*)$/.exec(info)!;
  const language = node.type === 'code' ? m[1] : undefined;
  const rest = node.type === 'code' ? m[2]! : info;
  if (!rest.trim()) return { language, attributes: new Map() };
  const parsed = parseAttributeList(rest);
  if (!parsed) {
    ctx.warn('INVALID_ATTRIBUTE', `the fence info "${clip(rest)}" is not an attribute list {…}; it is ignored`, node);
    return { language, attributes: new Map() };
  }
  if ('error' in parsed) {
    ctx.error('INVALID_ATTRIBUTE', `the fence attributes ${clip(rest)} ${parsed.error}`, node);
    return { language, attributes: new Map() };
  }
  return { language, attributes: parsed.attributes };
}

function code(ctx: ParseContext, node: Code): Element {
  const { language, attributes } = fenceAttributes(ctx, node);
  if (language === 'chart') return chart(ctx, node, attributes);
  const v = readAttributes(ctx, attributes, { caption: 'string', id: 'string', lineNumbers: 'boolean', language: 'string' }, 'a code block', node);
  const element: Record<string, unknown> = { type: 'code', code: node.value };
  const lang = (v.language as string | undefined) ?? language;
  if (lang !== undefined) element.language = lang;
  delete v.language;
  return { ...element, ...v } as Element;
}

/** A ```chart block: the chart element (without `type`) as YAML or JSON; id, caption, size and placement may also be fence attributes. */
function chart(ctx: ParseContext, node: Code, attributes: Attributes): Element {
  const v = readAttributes(ctx, attributes, { caption: 'string', id: 'string', width: 'length', height: 'length', align: 'string' }, 'a chart', node);
  const startLine = (node.position?.start.line ?? 1) + 1;
  let body: unknown;
  try {
    const yaml = new YamlText(node.value, startLine);
    const read = yaml.read();
    const problem = read.errors?.[0];
    if (problem) {
      ctx.error('INVALID_DIRECTIVE', `the chart block is not valid YAML or JSON: ${problem.message.split('\n')[0]}`, yaml.pointAt(problem.pos[0]));
      return { type: 'chart' } as unknown as Element;
    }
    body = read.data;
    ctx.yamlSources.push({ prefix: ctx.path, yaml });
  } catch (e) {
    ctx.error('INVALID_DIRECTIVE', `the chart block cannot be read: ${(e as Error).message}`, node);
    return { type: 'chart' } as unknown as Element;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    ctx.error('INVALID_DIRECTIVE', 'the chart block must be a YAML or JSON object with chartType and data', node);
    return { type: 'chart' } as unknown as Element;
  }
  const fields = { ...(body as Record<string, unknown>) };
  if (fields.type === 'chart') delete fields.type;
  for (const key of Object.keys(v)) {
    if (fields[key] !== undefined) ctx.error('INVALID_ATTRIBUTE', `the chart sets ${key} both in the fence and in its body`, node);
  }
  return { type: 'chart', ...fields, ...v } as Element;
}

function math(ctx: ParseContext, node: MathNode): Element {
  const { attributes } = fenceAttributes(ctx, node);
  const v = readAttributes(ctx, attributes, { caption: 'string', id: 'string', display: 'boolean' }, 'an equation', node);
  return { type: 'math', latex: node.value, ...v } as Element;
}
