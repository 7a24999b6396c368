// The directives of Extended Markdown: `::name{…}` elements and the `:::page` / `:::section` containers.
import type { ContainerDirective, LeafDirective } from 'mdast-util-directive';
import type { Nodes, RootContent } from 'mdast';
import type { Element, Section } from '../../contracts/document-json.js';
import { typedAttributes, type Attributes, type Kind } from './attributes.js';
import { TABLE_ATTRIBUTES, tableSettings } from './tables.js';
import type { ParseContext } from './context.js';
import { plainText } from './phrasing.js';

interface LeafSpec {
  attributes: Record<string, Kind>;
  required?: string[];
  /** The label `[…]` is the title. */
  labelIsTitle?: boolean;
  build(v: Record<string, string | number | boolean>): Record<string, unknown>;
}

const TITLE: Record<string, Kind> = { title: 'string' };

/** Every leaf directive by name; aliases share a spec. The element type names work as well. */
export const LEAF_DIRECTIVES: Record<string, LeafSpec> = {
  toc: { attributes: { ...TITLE, depth: 'integer' }, labelIsTitle: true, build: (v) => ({ type: 'toc', ...v }) },
  lof: { attributes: TITLE, labelIsTitle: true, build: (v) => ({ type: 'listOfFigures', ...v }) },
  lot: { attributes: TITLE, labelIsTitle: true, build: (v) => ({ type: 'listOfTables', ...v }) },
  bibliography: { attributes: { ...TITLE, style: 'string' }, labelIsTitle: true, build: (v) => ({ type: 'bibliography', ...v }) },
  pagebreak: { attributes: {}, build: () => ({ type: 'pageBreak' }) },
  divider: { attributes: {}, build: () => ({ type: 'divider' }) },
  spacer: { attributes: { height: 'number' }, required: ['height'], build: (v) => ({ type: 'spacer', ...v }) },
  qr: { attributes: { value: 'string', size: 'number', caption: 'string', align: 'string' }, required: ['value'], build: (v) => ({ type: 'qrCode', ...v }) },
  barcode: { attributes: { value: 'string', format: 'string', showText: 'boolean', height: 'number', align: 'string' }, required: ['value', 'format'], build: (v) => ({ type: 'barcode', ...v }) },
  var: { attributes: { name: 'string' }, required: ['name'], build: (v) => ({ type: 'variableRef', name: v.name }) },
  block: {
    attributes: { id: 'string', mode: 'string', version: 'integer' },
    required: ['id'],
    build: (v) => ({ type: 'blockRef', blockId: v.id, mode: v.mode ?? 'linked', ...(v.version !== undefined ? { version: v.version } : {}) }),
  },
  table: { attributes: { ...TABLE_ATTRIBUTES, rowsFrom: 'string' }, build: (v) => ({ type: 'table', ...v }) },
};

const ALIASES: Record<string, string> = { listOfFigures: 'lof', listOfTables: 'lot', pageBreak: 'pagebreak', qrCode: 'qr', variableRef: 'var', variable: 'var', blockRef: 'block' };

const KNOWN = Object.keys(LEAF_DIRECTIVES).map((n) => `::${n}`).join(', ');

export function leafDirective(ctx: ParseContext, node: LeafDirective): Element[] {
  const name = ALIASES[node.name] ?? node.name;
  const spec = LEAF_DIRECTIVES[name];
  if (!spec) {
    ctx.error('INVALID_DIRECTIVE', name === 'page' || name === 'section' ? `${name} is a container: open it with :::${name} and close it with a line ::: ` : `there is no directive ::${node.name}; the directives are ${KNOWN}`, node);
    return [];
  }
  const attributes = directiveAttributes(node.attributes);
  const { values, errors } = typedAttributes(attributes, spec.attributes, `::${node.name}`);
  const label = plainText({ type: 'paragraph', children: node.children }).trim();
  if (label) {
    if (spec.labelIsTitle && values.title === undefined) values.title = label;
    else errors.push(`::${node.name} takes no label [${label}]${spec.labelIsTitle ? '; give either the label or title' : ''}`);
  }
  for (const key of spec.required ?? []) if (values[key] === undefined && !attributes.has(key)) errors.push(`::${node.name} needs ${key}=…`);
  for (const e of errors) ctx.error('INVALID_DIRECTIVE', e, node);
  if (errors.length) return [];
  if (name === 'table') {
    const settings = tableSettings(ctx, values, [], 0, node);
    const element: Record<string, unknown> = { type: 'table', ...settings };
    if (values.headerRows !== undefined) element.headerRows = values.headerRows;
    if (values.rowsFrom !== undefined) element.rowsFrom = values.rowsFrom;
    else element.rows = [];
    return [element as Element];
  }
  return [spec.build(values) as Element];
}

/** remark-directive attributes (`#x` is id, `.x` is class) as an ordered map. */
export function directiveAttributes(raw: Record<string, string | null | undefined> | null | undefined): Attributes {
  const out: Attributes = new Map();
  for (const [k, v] of Object.entries(raw ?? {})) if (v !== null && v !== undefined) out.set(k, v);
  return out;
}

const PAGE: Record<string, Kind> = { id: 'string', align: 'string', startY: 'number' };
const FLOW: Record<string, Kind> = { id: 'string', newPage: 'boolean', columns: 'integer', space: 'number', separate: 'boolean' };

/** `:::page{align=center startY=3 #cover}` or `:::section{columns=2 space=1 separate newPage=false #id}` → the section without content. */
export function sectionFromDirective(ctx: ParseContext, node: ContainerDirective): Section {
  checkClosed(ctx, node);
  const page = node.name === 'page';
  const { values, errors } = typedAttributes(directiveAttributes(node.attributes), page ? PAGE : FLOW, `:::${node.name}`);
  if (node.children[0]?.data && (node.children[0].data as { directiveLabel?: boolean }).directiveLabel) errors.push(`:::${node.name} takes no label`);
  for (const e of errors) ctx.error('INVALID_DIRECTIVE', e, node);
  if (page) return { type: 'page', ...values, content: [] } as Section;
  const { columns, space, separate, ...rest } = values;
  const section: Record<string, unknown> = { type: 'flow', ...rest };
  if (columns !== undefined) {
    const cols: Record<string, unknown> = { count: columns };
    if (space !== undefined) cols.space = space;
    if (separate !== undefined) cols.separate = separate;
    section.columns = cols;
  } else if (space !== undefined || separate !== undefined) ctx.error('INVALID_DIRECTIVE', 'space and separate need columns=…', node);
  section.content = [];
  return section as Section;
}

/** A container's blocks, without its label paragraph (`:::name[label]`). */
export function contentOf(node: ContainerDirective): RootContent[] {
  const first = node.children[0];
  const labelled = first?.type === 'paragraph' && (first.data as { directiveLabel?: boolean } | undefined)?.directiveLabel;
  return labelled ? node.children.slice(1) : node.children;
}

/** A container whose closing `:::` is missing runs to the end of its parent: say so at its opening line. */
export function checkClosed(ctx: ParseContext, node: ContainerDirective): void {
  const end = node.position?.end;
  if (!end || end.offset === undefined) return;
  const last = ctx.source.slice(ctx.lineStart(end.line), end.offset).replace(/^[ \t>]*/, '');
  if (!/^:{3,}[ \t]*$/.test(last)) ctx.error('INVALID_DIRECTIVE', `:::${node.name} is never closed; end it with a line :::`, node);
}

/** How a container's blocks become elements (blocks.ts convertBlocks, passed in: blocks.ts imports this file). */
export type ConvertBlocks = (ctx: ParseContext, nodes: readonly RootContent[], sink: { nextPath(): string; push(element: Element, node: Nodes): void }) => void;

/**
 * `:::block{id=… mode=snapshot version=3}` … `:::`: a saved snapshot of a reusable block, its content written out
 * (elements at `….content[k]`, converted by `convert`: blocks.ts's convertBlocks). A linked block has no content in
 * the document: it is `::block{id=… mode=linked}`.
 */
export function snapshotBlock(ctx: ParseContext, node: ContainerDirective, convert: ConvertBlocks): Element[] {
  checkClosed(ctx, node);
  const path = ctx.path;
  const name = `:::${node.name}`;
  const { values, errors } = typedAttributes(directiveAttributes(node.attributes), LEAF_DIRECTIVES.block!.attributes, name);
  if (node.children[0]?.data && (node.children[0].data as { directiveLabel?: boolean }).directiveLabel) errors.push(`${name} takes no label`);
  if (values.id === undefined) errors.push(`${name} needs id=…`);
  if (values.mode !== undefined && values.mode !== 'snapshot') {
    errors.push(`${name} holds the content of a snapshot (mode=snapshot); a ${String(values.mode)} block has no content in the document: write ::block{id=… mode=${String(values.mode)}} on a line of its own`);
  }
  for (const e of errors) ctx.error('INVALID_DIRECTIVE', e, node);
  if (errors.length) return [];
  const content: Element[] = [];
  convert(ctx, contentOf(node), {
    nextPath: () => `${path}.content[${content.length}]`,
    push: (element, at) => {
      ctx.mark(`${path}.content[${content.length}]`, at);
      content.push(element);
    },
  });
  ctx.path = path;
  const ref: Record<string, unknown> = { type: 'blockRef', blockId: values.id, mode: 'snapshot' };
  if (values.version !== undefined) ref.version = values.version;
  ref.content = content;
  return [ref as unknown as Element];
}
