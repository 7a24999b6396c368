// Word's `{{name}}` / `${name}` placeholders → live variable nodes, also when Word split one across runs of different formatting.
import { variableAtStart, type Inline } from '../../document/inline-markup.js';

/** Decides whether a placeholder becomes live (and counts it); false keeps it as literal text. */
export type UseVariable = (name: string) => boolean;

/**
 * Replaces placeholders in a stretch of a paragraph's inline nodes. The text of consecutive runs (plain text or
 * emphasis around text) is read as one string, so `{{cus` in one run and `tomer}}` in the next is found; the
 * variable takes the emphasis of the run it starts in. Links, footnotes and breaks end a stretch; a link's own
 * text is a stretch of its own. Names follow the inline markup's rule, so `{{ not a name! }}` stays text.
 */
export function livePlaceholders(nodes: Inline[], use: UseVariable): Inline[] {
  const out: Inline[] = [];
  let leaves: Array<{ node: Inline; text: string }> = [];
  const flush = () => {
    out.push(...replaceIn(leaves, use));
    leaves = [];
  };
  for (const n of nodes) {
    const text = plainOf(n);
    if (text !== null) {
      leaves.push({ node: n, text });
      continue;
    }
    flush();
    out.push(n.t === 'link' ? { ...n, c: livePlaceholders(n.c, use) } : n);
  }
  flush();
  return out;
}

/** `{{name}}` / `${name}` in plain text (header and footer text) written as `{{name}}`; `{{page}}` and `{{pages}}` stay page fields. */
export function livePlainPlaceholders(text: string, use: UseVariable): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const m = text[i] === '{' || text[i] === '$' ? variableAtStart(text.slice(i)) : null;
    if (m && m.name !== 'page' && m.name !== 'pages' && use(m.name)) {
      out += `{{${m.name}}}`;
      i += m.length;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

function replaceIn(leaves: Array<{ node: Inline; text: string }>, use: UseVariable): Inline[] {
  const all = leaves.map((l) => l.text).join('');
  const found: Array<{ start: number; end: number; name: string }> = [];
  for (let i = 0; i < all.length; i++) {
    if (all[i] !== '{' && all[i] !== '$') continue;
    const m = variableAtStart(all.slice(i, i + 200));
    if (!m || !use(m.name)) continue;
    found.push({ start: i, end: i + m.length, name: m.name });
    i += m.length - 1;
  }
  if (!found.length) return leaves.map((l) => l.node);
  const out: Inline[] = [];
  let next = 0;
  let offset = 0;
  for (const leaf of leaves) {
    const end = offset + leaf.text.length;
    for (let i = offset; i < end; ) {
      const m = found[next];
      if (m && i >= m.end) {
        next++;
        continue;
      }
      if (m && i >= m.start) {
        if (i === m.start) out.push(rewrap(leaf.node, { t: 'var', name: m.name }));
        i = Math.min(end, m.end);
        continue;
      }
      const stop = m ? Math.min(end, m.start) : end;
      out.push(rewrap(leaf.node, { t: 'text', v: all.slice(i, stop) }));
      i = stop;
    }
    offset = end;
  }
  return out;
}

/** The text inside nested emphasis wrappers around a single text node, or null for anything else. */
export function plainOf(n: Inline): string | null {
  if (n.t === 'text') return n.v;
  if ((n.t === 'strong' || n.t === 'emph') && n.c.length === 1) return plainOf(n.c[0]!);
  return null;
}

/** `inner` inside the same emphasis wrappers as `n`. */
export function rewrap(n: Inline, inner: Inline): Inline {
  if (n.t === 'strong' || n.t === 'emph') return { t: n.t, c: [rewrap(n.c[0]!, inner)] };
  return inner;
}
