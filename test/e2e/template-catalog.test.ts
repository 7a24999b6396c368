// The built-in template catalog (catalog/templates): every template validates strictly, renders through POST /render/markdown
// with its style preset to a PDF that shows its sample values (read back by pdftotext and pdfinfo) and to a DOCX (read
// back by python-docx); the index lists at least twelve templates with unique slugs and existing sources.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT, useServer } from '../helpers/quire-server.js';
import type { ApiClient } from '../helpers/api-client.js';
import { renderAndDownload } from '../helpers/render-jobs.js';
import { popplerOutput } from '../helpers/poppler.js';
import { pythonDocx } from '../helpers/python-docx.js';
import { oneLine } from '../helpers/office-text.js';

type Json = Record<string, any>;

interface CatalogEntry {
  slug: string;
  name: string;
  category: string;
  description: string;
  stylePresetId: string;
}

const API = '/api/v1/dev';
const CATALOG_DIR = path.join(ROOT, 'catalog/templates');
const CATEGORIES = ['finance', 'sales', 'operations', 'legal', 'hr', 'marketing', 'general'];
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const index = JSON.parse(readFileSync(path.join(CATALOG_DIR, 'index.json'), 'utf8')) as CatalogEntry[];
const source = (slug: string): string => readFileSync(path.join(CATALOG_DIR, `${slug}.md`), 'utf8');

/** The front matter's `document` settings, read with the `yaml` library rather than Quire's parser. */
function frontMatterDocument(markdown: string): Json {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  assert.ok(m, 'the template opens with front matter');
  return (parseYaml(m[1]) as Json).document as Json;
}

/**
 * What each template's PDF must show, taken from its sample variables: the PDF title (metadata, variables substituted)
 * and texts from its body, tables and totals. The first text is also looked for in the DOCX.
 */
const EXPECTED: Record<string, { title: string; texts: string[] }> = {
  invoice: { title: 'Invoice INV-2026-0142', texts: ['INV-2026-0142', 'Cobalt Coffee Roasters Ltd', 'Front-end development', '2,720.00', '€ 7,779.75', 'IE29 BOFI 9000 1712 3456 78'] },
  quote: { title: 'Quote Q-2026-0318', texts: ['Q-2026-0318', 'Harbour & Pine Hotels', 'Booking engine integration', '5,700.00', '€ 20,659.08', '40 % on approval of the visual design'] },
  receipt: { title: 'Receipt R2-0093-1127', texts: ['Moleskine notebook A5 ruled', 'The Corner Bookshop', 'R2-0093-1127', '£52.49', 'Visa contactless •••• 4417'] },
  'purchase-order': { title: 'Purchase order PO-2026-0587', texts: ['PO-2026-0587', 'Alpine Textile Works AG', 'ATW-FL-200-M', '£15,186.00', '15 Jan 2027'] },
  'delivery-note': { title: 'Delivery note DN-2026-11873', texts: ['DN-2026-11873', 'Peak & Trail Sports', 'FH-BAG-35L', 'Ridge 35 L daypack, charcoal', 'DPD Freight'] },
  'business-letter': { title: 'Your member portal redesign, proposal and next steps', texts: ['Your member portal redesign, proposal and next steps', "Ms Siobhán O'Connor", 'AK/2026/117', 'Aoife Kelly', 'Quote Q-2026-0318'] },
  nda: { title: 'Mutual non-disclosure agreement', texts: ['Westbridge Credit Union Ltd', 'Brightline Studio Ltd', '1 December 2026', 'three (3) years', 'laws of Ireland'] },
  certificate: { title: 'Certificate of completion, Daniel Okafor', texts: ['Daniel Okafor', 'Certificate of Completion', 'Accessible Web Design, Advanced Practitioner', '20 November 2026', 'Dr Maeve Lynch', 'BA-AWD-2026-0458'] },
  report: { title: 'Annual Report 2026', texts: ['Annual Report 2026', 'Contents', 'Revenue by quarter, £ m', 'Key figures, 2025 and 2026', '£18.4 m', 'Hannah Whitfield'] },
  cv: { title: 'Curriculum vitae, Laura Brennan', texts: ['Laura Brennan', 'Senior Product Designer', 'MSc Interaction Design', 'laura.brennan@mail.example', 'Figma, FigJam, Maze, Miro, HTML and CSS'] },
  'meeting-minutes': { title: 'Minutes, Operations committee, 27 November 2026', texts: ['Operations committee', 'Hannah Whitfield', 'Marcus Reid', '11 December 2026, 10:00, meeting room 2', 'Decision:'] },
  'product-data-sheet': { title: 'Trailhead Headlamp 300 data sheet', texts: ['Trailhead Headlamp 300', 'FH-LAMP-300', '5012345678900', '£34.95', '1800 mAh Li-ion, built in', 'Light output over time in boost and high mode'] },
};

let api: ApiClient;
useServer(test, (s) => (api = s.api));

test('the index lists at least twelve templates with unique slugs, known categories, existing sources and system presets', async () => {
  assert.ok(index.length >= 12, `${index.length} templates`);
  assert.is(new Set(index.map((t) => t.slug)).size, index.length, 'slugs are unique');
  for (const t of index) {
    assert.match(t.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/, t.slug);
    assert.ok(t.name.length > 0 && t.description.length > 20, `${t.slug} has a name and a description`);
    assert.ok(CATEGORIES.includes(t.category), `${t.slug}: category ${t.category}`);
    assert.ok(existsSync(path.join(CATALOG_DIR, `${t.slug}.md`)), `${t.slug}.md exists`);
    const preset = await api.get(`${API}/styles/${t.stylePresetId}`);
    assert.is(preset.status, 200, `${t.slug}: ${t.stylePresetId}`);
    assert.is(preset.body.source, 'system');
    assert.ok(EXPECTED[t.slug], `the test knows what ${t.slug} shows`);
  }
  assert.equal(Object.keys(EXPECTED).sort(), index.map((t) => t.slug).sort());
});

for (const entry of index) {
  test(`the ${entry.slug} template validates strictly without warnings and renders its sample values to PDF and DOCX`, async () => {
    const content = source(entry.slug);
    const expected = EXPECTED[entry.slug]!;
    const document = frontMatterDocument(content);
    assert.type(document.filename, 'string', `${entry.slug} names its file`);

    const validation = await api.post(`${API}/render/validate/markdown?strict=true`, { content, stylePresetId: entry.stylePresetId });
    assert.is(validation.status, 200, validation.bytes.toString());
    assert.equal(validation.body, { valid: true, errors: [], warnings: [] });

    const pdf = await renderAndDownload(api, `${API}/render/markdown?strict=true`, { content, stylePresetId: entry.stylePresetId }, 'PDF', 'application/pdf');
    assert.is(pdf.job.filename, `${document.filename}.pdf`);
    assert.equal(pdf.job.warnings ?? [], []);
    const text = oneLine(await popplerOutput('pdftotext', ['-enc', 'UTF-8'], pdf.bytes));
    for (const t of expected.texts) assert.ok(text.includes(t), `${entry.slug}: "${t}" in ${text.slice(0, 2000)}`);
    assert.not.match(text, /\{\{|\$\{/, 'no variable is left unsubstituted');
    const info = await popplerOutput('pdfinfo', ['-enc', 'UTF-8'], pdf.bytes);
    assert.match(info, new RegExp(`^Title:\\s+${expected.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));

    const docx = await renderAndDownload(api, `${API}/render/markdown?strict=true`, { content, stylePresetId: entry.stylePresetId, document: { type: 'docx' } }, 'DOCX', DOCX_MIME);
    assert.is(docx.job.filename, `${document.filename}.docx`);
    const read = await pythonDocx(docx.bytes);
    const words = oneLine([...read.paragraphs.map((p: Json) => p.text), ...read.tables.flat().flatMap((r: Json) => r.cells)].join(' '));
    assert.ok(words.includes(expected.texts[0]!), `${entry.slug}: "${expected.texts[0]}" in the DOCX: ${words.slice(0, 1000)}`);
  });
}

test.run();
