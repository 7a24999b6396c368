// Extended Markdown → document JSON: front matter, sections, elements, then the document validator, with every issue placed in the source.
import type { Definition, FootnoteDefinition, Nodes, RootContent, Yaml } from 'mdast';
import type { ContainerDirective } from 'mdast-util-directive';
import YAML from 'yaml';
import { YamlText } from './yaml-text.js';
import { FRONT_MATTER_ALIASES, applyAliases } from './front-matter-aliases.js';
import type { Defaults, DocumentJson, Element, FlowSection, Section } from '../../contracts/document-json.js';
import { scanReferences, validateDocument } from '../validator.js';
import { mergeDefaults } from '../styles.js';
import { convertBlocks, type Sink } from './blocks.js';
import { ParseContext, type Issue, type Point } from './context.js';
import { contentOf, sectionFromDirective } from './directives.js';
import { findExcessiveNesting } from './guard.js';
import { definitionsOf, markdownChunks, markdownTree, type MarkdownChunks } from './tree.js';

export interface ParseOptions {
  /** Largest source accepted, in UTF-8 bytes (default 1 MiB). */
  maxBytes?: number;
  /** Broken references, undefined citations, abbreviations and variables are errors instead of warnings. */
  strict?: boolean;
  /** Defaults beneath the front matter's (a style preset's definition). */
  baseDefaults?: Defaults;
  /** Settings given beside the source (the fields of POST /render/markdown): they go over the front matter's. */
  overrides?: Overrides;
  /**
   * Sources longer than this many UTF-8 bytes are converted chunk by chunk (default CHUNKED_CONVERSION_BYTES);
   * the document is the same either way.
   */
  chunkedAbove?: number;
}

/**
 * Settings that go over the front matter: `document` field by field, `variables` and `abbreviations`
 * key by key, `citations` item by item (an item replaces the front matter's item with the same id),
 * `defaults` as a style over a preset (mergeDefaults). Issues about a value taken from here carry no
 * line and column: it is not in the source.
 */
export interface Overrides {
  document?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  abbreviations?: Record<string, unknown>;
  citations?: unknown[];
  defaults?: Defaults;
}

export interface ParseResult {
  /** The document (it passes validateDocument); null when there are errors. */
  document: DocumentJson | null;
  errors: Issue[];
  warnings: Issue[];
}

export const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Past this size the mdast is converted a chunk at a time and each chunk's tree let go once converted
 * (markdownChunks): what a 1 MB parse keeps live falls from 47 to 13.5 times the source, for a second
 * micromark pass (the definitions come first). Below it the whole tree is built, once, and its chunks
 * are cached for the next parse of an edited copy (docs/benchmarks.md, "Chunk by chunk for large sources").
 */
export const CHUNKED_CONVERSION_BYTES = 256 * 1024;

const FRONT_MATTER_KEYS = ['document', 'variables', 'abbreviations', 'citations', 'defaults'] as const;

/** The keys a front matter may have, for messages: the sections, then the aliases of single settings. */
const KEYS_TEXT = `${FRONT_MATTER_KEYS.join(', ')}, or the aliases ${Object.entries(FRONT_MATTER_ALIASES)
  .map(([key, path]) => `${key} (${path.join('.')})`)
  .join(', ')}`;

/** Parses Extended Markdown. Never throws: any failure is an error in the result. */
export function parseMarkdown(source: string, options: ParseOptions = {}): ParseResult {
  try {
    return parse(source, options);
  } catch (e) {
    const overflow = e instanceof RangeError;
    const message = overflow ? 'the Markdown nests too deeply to be read' : `the Markdown could not be read: ${(e as Error)?.message ?? String(e)}`;
    return { document: null, errors: [{ path: '(markdown)', message, code: overflow ? 'LIMIT_EXCEEDED' : 'INVALID_MARKDOWN', line: 1, column: 1 }], warnings: [] };
  }
}

function parse(input: string, options: ParseOptions): ParseResult {
  if (typeof input !== 'string') return fail('INVALID_MARKDOWN', 'the Markdown must be a string');
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const bytes = Buffer.byteLength(input, 'utf8');
  if (bytes > maxBytes) return fail('LIMIT_EXCEEDED', `the Markdown is ${bytes} bytes; at most ${maxBytes} bytes are accepted`);
  const source = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const deep = findExcessiveNesting(source);
  if (deep) return fail('LIMIT_EXCEEDED', deep.message, deep);

  // A large source is converted chunk by chunk and each chunk dropped once converted (see markdownChunks):
  // the definitions, which conversion needs document-wide, come from a first pass.
  const parsed = bytes > (options.chunkedAbove ?? CHUNKED_CONVERSION_BYTES) ? markdownChunks(source) : wholeTree(source);
  const ctx = new ParseContext(source);
  let settings: Record<string, unknown> = {};
  const start = (first: RootContent | undefined) => {
    if (first?.type === 'yaml') settings = frontMatter(ctx, first);
    if (first?.type !== 'yaml' && /^---[ \t]*\r?\n/.test(source)) {
      ctx.error('INVALID_FRONT_MATTER', 'the front matter opened by --- on line 1 is not closed by a line ---; to start with a divider, write *** or ::divider', { line: 1, column: 1 }, '(front matter)');
    }
    collectDefinitions(ctx, parsed.definitions);
  };
  const sections = buildSections(ctx, parsed.chunks, start);
  for (const [id, definition] of ctx.footnotes) {
    if (!ctx.usedFootnotes.has(id)) ctx.warn('UNUSED_FOOTNOTE', `the footnote [^${definition.label ?? id}] is never referenced; it is dropped`, definition, '(markdown)');
  }

  const fromRequest = applySettings(settings, options);
  const document = { type: 'pdf', ...(settings.document as object | undefined) };
  const doc = { document, sections } as DocumentJson;
  for (const key of FRONT_MATTER_KEYS.slice(1)) if (settings[key] !== undefined) (doc as unknown as Record<string, unknown>)[key] = settings[key];

  const validation = validateDocument(doc);
  const outside = (e: Issue): Issue => (fromRequest.some((p) => e.path === p || e.path.startsWith(`${p}.`) || e.path.startsWith(`${p}[`)) ? { ...e, line: undefined, column: undefined } : e);
  ctx.errors.push(...validation.errors.map((e) => ({ ...e })).map(outside).map((e) => place(ctx, e)));
  if (validation.valid && !ctx.errors.length) {
    const report = scanReferences(validation.document!);
    const found = [...report.brokenReferences, ...report.undefinedCitations, ...report.undefinedAbbreviations, ...report.unknownVariables];
    for (const e of found) (options.strict ? ctx.errors : ctx.warnings).push(place(ctx, outside({ ...e })));
  }
  const errors = sortIssues(ctx.errors.map((i) => place(ctx, i)));
  const warnings = sortIssues(ctx.warnings.map((i) => place(ctx, i)));
  return { document: errors.length ? null : doc, errors, warnings };
}

/**
 * Puts the preset beneath the front matter and the request's settings over it (see Overrides), in
 * place. Returns the JSON paths whose values came from the request.
 */
function applySettings(settings: Record<string, unknown>, { baseDefaults, overrides = {} }: ParseOptions): string[] {
  const taken: string[] = [];
  const record = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  for (const key of ['document', 'variables', 'abbreviations'] as const) {
    const over = record(overrides[key]);
    if (!over || !Object.keys(over).length) continue;
    settings[key] = { ...record(settings[key]), ...over };
    taken.push(...Object.keys(over).map((k) => `${key}.${k}`));
  }
  if (overrides.citations?.length) {
    const ids = new Set(overrides.citations.map((c) => record(c)?.id));
    const kept = (Array.isArray(settings.citations) ? settings.citations : []).filter((c) => !ids.has(record(c)?.id));
    settings.citations = [...kept, ...overrides.citations];
    overrides.citations.forEach((_, i) => taken.push(`citations[${kept.length + i}]`));
  }
  if (baseDefaults || overrides.defaults) {
    const own = record(settings.defaults) as Defaults | undefined;
    settings.defaults = mergeDefaults(mergeDefaults(baseDefaults, own), overrides.defaults);
    taken.push(...leafPaths(overrides.defaults ?? {}, 'defaults'));
  }
  return taken;
}

/** `defaults.fonts.size`, … for every scalar or array of an object. */
function leafPaths(value: object, at: string): string[] {
  return Object.entries(value).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? leafPaths(v, `${at}.${k}`) : [`${at}.${k}`]));
}

function fail(code: string, message: string, at: Point = { line: 1, column: 1 }): ParseResult {
  return { document: null, errors: [{ path: '(markdown)', message, code, line: at.line, column: at.column }], warnings: [] };
}

function sortIssues(issues: Issue[]): Issue[] {
  return issues.map((issue, i) => ({ issue, i })).sort((a, b) => (a.issue.line ?? 0) - (b.issue.line ?? 0) || a.i - b.i).map((x) => x.issue);
}

// ---------------------------------------------------------------- front matter

function frontMatter(ctx: ParseContext, node: Yaml): Record<string, unknown> {
  const yaml = new YamlText(node.value, (node.position?.start.line ?? 1) + 1);
  let data: unknown;
  try {
    const read = yaml.read();
    if (read.errors) {
      for (const e of read.errors) ctx.error('INVALID_FRONT_MATTER', `the front matter is not valid YAML: ${e.message.split('\n')[0]}`, yaml.pointAt(e.pos[0]), '(front matter)');
      return {};
    }
    data = read.data;
  } catch (e) {
    ctx.error('INVALID_FRONT_MATTER', `the front matter cannot be read: ${(e as Error).message}`, node, '(front matter)');
    return {};
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    ctx.error('INVALID_FRONT_MATTER', `the front matter must be a YAML mapping with the keys ${KEYS_TEXT}`, node, '(front matter)');
    return {};
  }
  const settings = data as Record<string, unknown>;
  applyAliases(ctx, yaml, settings);
  for (const key of Object.keys(settings)) {
    if ((FRONT_MATTER_KEYS as readonly string[]).includes(key)) continue;
    const { contents } = yaml.doc;
    const keyNode = contents && YAML.isMap(contents) ? contents.items.find((p) => YAML.isScalar(p.key) && p.key.value === key)?.key : undefined;
    const range = (keyNode as { range?: [number, number, number] } | undefined)?.range;
    ctx.error('INVALID_FRONT_MATTER', `the front matter has no key "${key}"; the keys are ${KEYS_TEXT} (other page and metadata settings go under document:)`, range ? yaml.pointAt(range[0]) : node, '(front matter)');
    delete settings[key];
  }
  ctx.yamlSources.push({ prefix: '', yaml });
  return settings;
}

// ---------------------------------------------------------------- sections

/** The tree built whole (markdownTree, its chunks cached), as one chunk. */
function wholeTree(source: string): MarkdownChunks {
  const tree = markdownTree(source);
  return { definitions: definitionsOf([tree.children]), chunks: [tree.children], whole: tree };
}

/** Link and footnote definitions anywhere in the document (they may come after their use): the first of each identifier in definitionsOf's order. */
function collectDefinitions(ctx: ParseContext, definitions: ReadonlyArray<Definition | FootnoteDefinition>): void {
  for (const node of definitions) {
    if (node.type === 'definition') {
      if (!ctx.definitions.has(node.identifier)) ctx.definitions.set(node.identifier, node);
    } else if (!ctx.footnotes.has(node.identifier)) ctx.footnotes.set(node.identifier, node);
  }
}

/**
 * Content outside `:::page` / `:::section` goes into flow sections of its own: one for each run of
 * blocks between explicit sections. The top-level nodes come chunk by chunk; `start` is called with
 * the document's first node before any is converted.
 */
function buildSections(ctx: ParseContext, chunks: Iterable<RootContent[]>, start: (first: RootContent | undefined) => void): Section[] {
  const sections: Section[] = [];
  let run: RootContent[] = [];
  let section: FlowSection | null = null;
  const sink: Sink = {
    nextPath: () => `sections[${section ? sections.length - 1 : sections.length}].content[${section ? section.content.length : 0}]`,
    push: (element: Element, node: Nodes) => {
      if (!section) {
        section = { type: 'flow', content: [] };
        sections.push(section);
        ctx.mark(`sections[${sections.length - 1}]`, node);
      }
      ctx.mark(`sections[${sections.length - 1}].content[${section.content.length}]`, node);
      section.content.push(element);
    },
  };
  // A table takes the paragraph after it as its attributes (convertBlocks): one that ends a chunk waits for the next chunk.
  const convertRun = (all: boolean) => {
    const keep = !all && run[run.length - 1]?.type === 'table' ? 1 : 0;
    if (run.length > keep) convertBlocks(ctx, run.slice(0, run.length - keep), sink);
    run = run.slice(run.length - keep);
  };
  const flush = () => {
    convertRun(true);
    section = null;
  };
  let started = false;
  for (const nodes of chunks) {
    if (!started && nodes.length) {
      started = true;
      start(nodes[0]);
    }
    for (const node of nodes) {
      if (node.type === 'yaml') continue;
      if (node.type === 'containerDirective' && (node.name === 'page' || node.name === 'section')) {
        flush();
        ctx.path = `sections[${sections.length}]`;
        const explicit = sectionFromDirective(ctx, node);
        sections.push(explicit);
        const index = sections.length - 1;
        ctx.mark(`sections[${index}]`, node);
        const into: Sink = {
          nextPath: () => `sections[${index}].content[${explicit.content.length}]`,
          push: (element, at) => {
            ctx.mark(`sections[${index}].content[${explicit.content.length}]`, at);
            (explicit.content as Element[]).push(element);
          },
        };
        convertBlocks(ctx, contentOf(node), into);
      } else run.push(node);
    }
    convertRun(false);
  }
  if (!started) start(undefined);
  flush();
  return sections;
}

// ---------------------------------------------------------------- positions

/** Gives an issue the source position of its path (or the closest enclosing path). */
function place(ctx: ParseContext, issue: Issue): Issue {
  // An issue about a request field has `line: undefined` on purpose: it has no place in the source.
  if ('line' in issue) return issue;
  const at = locate(ctx, issue.path);
  return at ? { ...issue, line: at.line, column: at.column } : { ...issue, line: 1, column: 1 };
}

/** `document.keywords[2]` → `keywords[2]` when the front matter gave document.keywords as `keywords:`. */
function aliasOf(ctx: ParseContext, path: string): string {
  for (const [setting, key] of ctx.aliasPaths) {
    if (path === setting || path.startsWith(`${setting}.`) || path.startsWith(`${setting}[`)) return key + path.slice(setting.length);
  }
  return path;
}

function locate(ctx: ParseContext, path: string): Point | undefined {
  for (const source of ctx.yamlSources) {
    let rest: string;
    if (source.prefix === '') {
      const top = /^[A-Za-z]+/.exec(path)?.[0];
      if (!top || !(FRONT_MATTER_KEYS as readonly string[]).includes(top)) continue;
      rest = aliasOf(ctx, path);
    } else if (path.startsWith(`${source.prefix}.`)) rest = path.slice(source.prefix.length + 1);
    else continue;
    const segments: Array<string | number> = [];
    for (const m of rest.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) segments.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
    while (segments.length) {
      const node = source.yaml.doc.getIn(segments, true) as { range?: [number, number, number] } | undefined;
      if (node?.range) {
        return source.yaml.pointAt(node.range[0]);
      }
      segments.pop();
    }
    if (source.prefix === '') return { line: source.yaml.firstLine - 1, column: 1 };
  }
  let p = path;
  for (;;) {
    const hit = ctx.positions.get(p);
    if (hit) return hit;
    const shorter = p.replace(/(?:\.[^.[\]]+|\[\d+\])$/, '');
    if (shorter === p || !shorter) return undefined;
    p = shorter;
  }
}
