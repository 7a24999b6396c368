// Code highlighting for the office targets: lowlight (highlight.js grammars of the common languages) and the
// colors of highlight.js's GitHub light theme (styles/github.css), one token list per source line.
import { common, createLowlight } from 'lowlight';

export interface CodeToken {
  v: string;
  color: string | null;
  bold: boolean;
  italic: boolean;
}

type Style = { color?: string; bold?: boolean; italic?: boolean };

/** highlight.js class → GitHub light style. Classes are checked innermost first, as CSS would apply them. */
const THEME: Record<string, Style> = {
  'hljs-doctag': { color: '#d73a49' },
  'hljs-keyword': { color: '#d73a49' },
  'hljs-template-tag': { color: '#d73a49' },
  'hljs-template-variable': { color: '#d73a49' },
  'hljs-type': { color: '#d73a49' },
  'hljs-title': { color: '#6f42c1' },
  'hljs-attr': { color: '#005cc5' },
  'hljs-attribute': { color: '#005cc5' },
  'hljs-literal': { color: '#005cc5' },
  'hljs-meta': { color: '#005cc5' },
  'hljs-number': { color: '#005cc5' },
  'hljs-operator': { color: '#005cc5' },
  'hljs-variable': { color: '#005cc5' },
  'hljs-selector-attr': { color: '#005cc5' },
  'hljs-selector-class': { color: '#005cc5' },
  'hljs-selector-id': { color: '#005cc5' },
  'hljs-regexp': { color: '#032f62' },
  'hljs-string': { color: '#032f62' },
  'hljs-built_in': { color: '#e36209' },
  'hljs-symbol': { color: '#e36209' },
  'hljs-comment': { color: '#6a737d' },
  'hljs-code': { color: '#6a737d' },
  'hljs-formula': { color: '#6a737d' },
  'hljs-name': { color: '#22863a' },
  'hljs-quote': { color: '#22863a' },
  'hljs-selector-tag': { color: '#22863a' },
  'hljs-selector-pseudo': { color: '#22863a' },
  'hljs-subst': { color: '#24292e' },
  'hljs-section': { color: '#005cc5', bold: true },
  'hljs-bullet': { color: '#735c0f' },
  'hljs-emphasis': { color: '#24292e', italic: true },
  'hljs-strong': { color: '#24292e', bold: true },
  'hljs-addition': { color: '#22863a' },
  'hljs-deletion': { color: '#b31d28' },
};

/** Names documents use that highlight.js spells differently. */
const ALIASES: Record<string, string> = { 'c#': 'csharp', 'c++': 'cpp', 'f#': 'fsharp', 'objective-c': 'objectivec', sh: 'bash', shell: 'bash', yml: 'yaml', html: 'xml', svg: 'xml' };

let lowlight: ReturnType<typeof createLowlight> | null = null;

interface HastNode {
  type: string;
  value?: string;
  tagName?: string;
  properties?: { className?: unknown };
  children?: HastNode[];
}

/** The code as lines of tokens; an unknown or missing language gives uncolored lines. */
export function highlightCode(code: string, lang: string | null): CodeToken[][] {
  const lines: CodeToken[][] = [[]];
  const push = (text: string, style: Style) => {
    const parts = text.split(/\r\n|\r|\n/);
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (!part) return;
      const line = lines.at(-1)!;
      const token = { v: part, color: style.color ?? null, bold: style.bold ?? false, italic: style.italic ?? false };
      const last = line.at(-1);
      if (last && last.color === token.color && last.bold === token.bold && last.italic === token.italic) last.v += part;
      else line.push(token);
    });
  };
  const name = lang ? (ALIASES[lang.toLowerCase()] ?? lang.toLowerCase()) : null;
  lowlight ??= createLowlight(common);
  if (!name || !lowlight.registered(name)) {
    push(code, {});
    return lines;
  }
  const walk = (node: HastNode, style: Style) => {
    if (node.type === 'text') return push(node.value ?? '', style);
    let own = style;
    const classes = Array.isArray(node.properties?.className) ? (node.properties.className as string[]) : [];
    // `.hljs-variable.language_` (this, self) is a keyword in the theme, unlike other variables.
    const themed = classes.includes('hljs-variable') && classes.includes('language_') ? THEME['hljs-keyword'] : classes.map((c) => THEME[c]).find((s) => s !== undefined);
    if (themed) own = { ...style, ...themed };
    for (const child of node.children ?? []) walk(child, own);
  };
  walk(lowlight.highlight(name, code) as HastNode, {});
  return lines;
}
