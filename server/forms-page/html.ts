// A small HTML templating tag: every interpolation is escaped unless it is already safe HTML (a fragment this tag made,
// or one wrapped in `trusted` on purpose), so user values and owners' texts are always data, never markup.

const SAFE = Symbol('safe-html');

/** A piece of HTML known to be safe: made by `html`, or passed through `trusted` by code that built it. */
export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

function safe(text: string): SafeHtml {
  return { [SAFE]: true, text };
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && (value as SafeHtml)[SAFE] === true;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text as HTML content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isSafe(value)) return value.text;
  return escapeHtml(String(value));
}

/** The tag: literal parts as written, every `${…}` escaped (arrays joined, null/undefined/false left out). */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return safe(out);
}

/** Markup that code (never a user or an owner) wrote, e.g. a constant. Use sparingly and say why. */
export function trusted(markup: string): SafeHtml {
  return safe(markup);
}

/** An attribute present or absent by a condition (`<input${attr('required', r)}>`). */
export function attr(name: string, on: boolean): SafeHtml {
  return safe(on ? ` ${name}` : '');
}
