// A small HTML templating tag: every interpolation is escaped unless it is a fragment this tag made (the only safe
// HTML there is), so user values and owners' texts are always data, never markup.

const SAFE = Symbol('safe-html');

/** A piece of HTML known to be safe: made by `html` (or `attr`) from literal markup and escaped values. */
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
function escapeHtml(text: string): string {
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

/** A literal attribute present or absent by a condition (`<input${attr('checked', c)}>`); `markup` is always a constant of the code. */
export function attr(markup: 'checked' | 'selected' | 'hidden' | 'aria-required="true"' | 'aria-invalid="true"', on: boolean): SafeHtml {
  return safe(on ? ` ${markup}` : '');
}
