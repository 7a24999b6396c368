// The variables of the Markdown in the editor: those its front matter declares (read with the yaml library) and the
// `{{name}}` / `${name}` references in its text (the spellings docs/extended-markdown.md lists), in order of appearance.
import { parse } from 'yaml';

export interface Variable {
  name: string;
  /** The front matter's value as text, shown as the input's placeholder; null when only referenced. */
  declared: string | null;
  /** A table, list or image object: a value typed here cannot stand for it, so it keeps the front matter's. */
  structured: boolean;
}

/** Page numbers of headers and footers: the renderer fills them, they are no variables. */
const RESERVED = new Set(['page', 'pages']);
const REFERENCE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}/g;

function frontMatterVariables(markdown: string): Record<string, unknown> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n|$)/.exec(markdown);
  if (!m) return {};
  try {
    const data = parse(m[1]!) as { variables?: unknown } | null;
    return data && typeof data.variables === 'object' && data.variables !== null && !Array.isArray(data.variables) ? (data.variables as Record<string, unknown>) : {};
  } catch {
    // Front matter being typed is often not YAML yet; the validation shows its error at its line.
    return {};
  }
}

export function variablesOf(markdown: string): Variable[] {
  const declared = frontMatterVariables(markdown);
  const out = new Map<string, Variable>();
  for (const [name, value] of Object.entries(declared)) {
    const structured = typeof value === 'object' && value !== null;
    out.set(name, { name, declared: structured ? null : String(value ?? ''), structured });
  }
  for (const m of markdown.matchAll(REFERENCE)) {
    const name = (m[1] ?? m[2])!;
    // customer.name reads a field of the object variable customer.
    const root = name.split('.')[0]!;
    if (RESERVED.has(name) || out.has(name) || out.has(root)) continue;
    out.set(name, { name, declared: null, structured: false });
  }
  return [...out.values()];
}

/** The values typed in the panel for the variables the text still has: sent with the preview and the render. */
export function requestVariables(vars: Variable[], values: Record<string, string>): Record<string, string> | undefined {
  const chosen = vars.filter((v) => !v.structured && (values[v.name] ?? '') !== '').map((v) => [v.name, values[v.name]!] as const);
  return chosen.length ? Object.fromEntries(chosen) : undefined;
}
