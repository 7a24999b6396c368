// Pandoc, Jekyll, Hugo and Obsidian front matter keys (title, author, lang, …) read as the `document:` and `defaults:` settings they stand for.
import YAML from 'yaml';
import type { ParseContext, Point } from './context.js';
import type { YamlText } from './yaml-text.js';

/** Top-level key → the JSON path of the setting it stands for. */
export const FRONT_MATTER_ALIASES: Readonly<Record<string, readonly [string, string]>> = {
  title: ['document', 'title'],
  subtitle: ['document', 'subtitle'],
  author: ['document', 'author'],
  date: ['document', 'date'],
  abstract: ['document', 'abstract'],
  keywords: ['document', 'keywords'],
  lang: ['defaults', 'locale'],
};

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/** A scalar as the text these tools mean by it: `date: 2024` is the text "2024". */
function text(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : value.toISOString().replace(/T00:00:00\.000Z$/, '').replace(/\.000Z$/, 'Z');
  return value;
}

/**
 * The value an alias gives its setting: `author` as a list of names (or of `{name: …}`, Pandoc's form)
 * joined with ", "; `keywords` as a comma-separated string split; other scalars as text. A value of another
 * shape is passed on as it is, for the validator to name.
 */
function settingValue(key: string, value: unknown): unknown {
  if (key === 'author' && Array.isArray(value)) {
    const names = value.map((a) => text(isRecord(a) ? a.name : a));
    return names.every((n) => typeof n === 'string') ? names.join(', ') : value;
  }
  if (key === 'keywords') {
    if (typeof value === 'string') return value.split(',').map((k) => k.trim()).filter(Boolean);
    return Array.isArray(value) ? value.map(text) : value;
  }
  return text(value);
}

/**
 * Moves the alias keys of `settings` (the front matter's data) into the settings they stand for, in place.
 * A setting given both ways with different values is an error naming both keys and their lines; the same
 * value twice is fine. Records in ctx.aliasPaths where each moved setting is in the source.
 */
export function applyAliases(ctx: ParseContext, yaml: YamlText, settings: Record<string, unknown>): void {
  for (const [key, [group, field]] of Object.entries(FRONT_MATTER_ALIASES)) {
    if (!Object.hasOwn(settings, key)) continue;
    const value = settingValue(key, settings[key]);
    delete settings[key];
    // `document:` with nothing after it is YAML null: an empty mapping here, as it is to the parse.
    if (settings[group] === undefined || settings[group] === null) settings[group] = {};
    const target = settings[group];
    // `document: 3` and the like: the validator names that; the alias has nowhere to go.
    if (!isRecord(target)) continue;
    if (target[field] !== undefined) {
      if (JSON.stringify(target[field]) === JSON.stringify(value)) continue;
      const at = keyPoint(yaml, [key]);
      const other = keyPoint(yaml, [group, field]);
      ctx.error(
        'INVALID_FRONT_MATTER',
        `the front matter sets ${key} (line ${at.line}) and ${group}.${field} (line ${other.line}) to different values; keep one of them (${key}: is read as ${group}.${field})`,
        at,
        '(front matter)',
      );
      continue;
    }
    target[field] = value;
    ctx.aliasPaths.set(`${group}.${field}`, key);
  }
}

/** Where the key at `path` (in the YAML's top-level mapping, or one level down) is in the Markdown source. */
function keyPoint(yaml: YamlText, path: readonly string[]): Point {
  let node: unknown = yaml.doc.contents;
  let key: unknown;
  for (const name of path) {
    const pair = YAML.isMap(node) ? node.items.find((p) => YAML.isScalar(p.key) && p.key.value === name) : undefined;
    key = pair?.key;
    node = pair?.value;
  }
  const range = (key as { range?: [number, number, number] } | undefined)?.range;
  return range ? yaml.pointAt(range[0]) : { line: yaml.firstLine - 1, column: 1 };
}
