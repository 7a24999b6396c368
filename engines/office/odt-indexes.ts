// Table of contents, list of figures and list of tables as ODF indexes. The index body is written
// pre-filled from the resolved entries (each a link to its bookmark), so the file shows the lists as
// soon as it is opened; page numbers appear when the reader updates the index (Writer: Tools › Update).
import { el, type Xml } from './xml.js';
import { odtText } from './odt-common.js';
import type { Block } from './model.js';

type IndexBlock = Extract<Block, { t: 'toc' | 'lof' | 'lot' }>;

/** One of the three indexes; `name` must be unique in the document, so each gets a running number. */
export function writeIndex(b: IndexBlock, n: number): Xml {
  const entryLink = (text: string, id: string) =>
    el('text:a', { 'xlink:type': 'simple', 'xlink:href': `#${id}`, 'text:style-name': 'Index_20_Link', 'text:visited-style-name': 'Index_20_Link' }, odtText(text));
  const tabAndPage = [el('text:index-entry-tab-stop', { 'style:type': 'right', 'style:leader-char': '.' }), el('text:index-entry-page-number')];

  if (b.t === 'toc') {
    const name = `Table of Contents${n}`;
    const depth = Math.min(10, Math.max(1, b.depth));
    const templates = Array.from({ length: 10 }, (_, i) =>
      el(
        'text:table-of-content-entry-template',
        { 'text:outline-level': i + 1, 'text:style-name': `Contents_20_${i + 1}` },
        el('text:index-entry-link-start', { 'text:style-name': 'Index_20_Link' }),
        el('text:index-entry-text'),
        tabAndPage,
        el('text:index-entry-link-end'),
      ),
    );
    return el(
      'text:table-of-content',
      { 'text:protected': 'true', 'text:name': name },
      el(
        'text:table-of-content-source',
        { 'text:outline-level': depth, 'text:use-outline-level': 'true', 'text:use-index-marks': 'false', 'text:index-scope': 'document' },
        el('text:index-title-template', { 'text:style-name': 'Contents_20_Heading' }, b.title),
        templates,
      ),
      el(
        'text:index-body',
        null,
        b.title ? el('text:index-title', { 'text:name': `${name}_Head` }, el('text:p', { 'text:style-name': 'Contents_20_Heading' }, odtText(b.title))) : null,
        b.entries
          .filter((e) => e.level <= depth)
          .map((e) => el('text:p', { 'text:style-name': `Contents_20_${Math.min(10, Math.max(1, e.level))}` }, entryLink(e.text, e.id))),
      ),
    );
  }

  const figures = b.t === 'lof';
  const kind = figures ? 'illustration-index' : 'table-index';
  const name = `${figures ? 'Illustration Index' : 'Table Index'}${n}`;
  const headingStyle = figures ? 'Illustration_20_Index_20_Heading' : 'Table_20_index_20_heading';
  const entryStyle = figures ? 'Illustration_20_Index_20_1' : 'Table_20_index_20_1';
  return el(
    `text:${kind}`,
    { 'text:protected': 'true', 'text:name': name },
    el(
      `text:${kind}-source`,
      // Entries are the captions that hold a sequence field of this name (odt-content.ts writes them).
      { 'text:index-scope': 'document', 'text:use-caption': 'true', 'text:caption-sequence-name': figures ? 'Figure' : 'Table', 'text:caption-sequence-format': 'text' },
      el('text:index-title-template', { 'text:style-name': headingStyle }, b.title),
      el(`text:${kind}-entry-template`, { 'text:style-name': entryStyle }, el('text:index-entry-text'), tabAndPage),
    ),
    el(
      'text:index-body',
      null,
      b.title ? el('text:index-title', { 'text:name': `${name}_Head` }, el('text:p', { 'text:style-name': headingStyle }, odtText(b.title))) : null,
      b.entries.map((e) => el('text:p', { 'text:style-name': entryStyle }, entryLink(e.text, e.id))),
    ),
  );
}
