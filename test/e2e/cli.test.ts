// The `quire` CLI as a user runs it (scripts/quire.mjs, what `npx quire` starts) against a started server: render with
// --var and --watch, validate, bulk from a CSV, tools merge, jobs, lens extract, profiles, and its one-line errors and exit codes.
// test-stores: once (the CLI speaks HTTP; what the store behind the server does is tested by the other e2e files).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OWNER_KEY, ROOT, useServer, type RunningServer } from '../helpers/quire-server.js';
import type { ApiClient } from '../helpers/api-client.js';
import { popplerOutput } from '../helpers/poppler.js';
import { saveLetter } from '../helpers/bulk-jobs.js';
import { INVOICE, invoiceDocument, renderFile } from '../helpers/lens-fixtures.js';
import { makePdf } from '../fixtures/pdfs.js';
import { until } from '../helpers/webhook-receiver.js';

const QUIRE = path.join(ROOT, 'scripts/quire.mjs');

let server: RunningServer;
let api: ApiClient;
let dir: string;

useServer(test, (started) => ({ server, api } = started));
test.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'quire-cli-test-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user with the server in QUIRE_URL/QUIRE_API_KEY and no profile file (HOME is the test's folder). */
function env(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, QUIRE_URL: server.baseUrl, QUIRE_API_KEY: OWNER_KEY };
  if (process.env.QUIRE_TEST_RUN) base.QUIRE_TEST_RUN = process.env.QUIRE_TEST_RUN;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

/** Runs `quire <args>` in the test's folder to its end. */
async function quire(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<Ran> {
  const proc = spawn(QUIRE, args, { cwd: dir, env: env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(proc, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

function file(name: string, content: string | Uint8Array): string {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
}

const pdfText = (p: string) => popplerOutput('pdftotext', [], readFileSync(path.join(dir, p)));

test('render writes the PDF of a Markdown file with --var over the front matter; pdftotext reads it', async () => {
  file('report.md', '---\ndocument:\n  title: Report\nvariables:\n  customer: nobody\n---\n\n# Report for {{customer}}\n\nAll figures are final.\n');
  const r = await quire(['render', 'report.md', '-o', 'out/report.pdf', '--var', 'customer=ACME Corp', '--style', 'system:classic-serif']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^wrote out\/report\.pdf \(1 page, \d+ bytes/);
  const text = await pdfText('out/report.pdf');
  assert.match(text, 'Report for ACME Corp');
  assert.match(text, 'All figures are final.');
});

test('render of a .json file sends document JSON, with --var over its variables', async () => {
  const doc = { document: { type: 'pdf', title: 'Memo' }, variables: { who: 'nobody' }, sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Memo to {{who}}' }] }] };
  file('memo.json', JSON.stringify(doc));
  const r = await quire(['render', 'memo.json', '--var', 'who=the board']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^wrote memo\.pdf /);
  assert.match(await pdfText('memo.pdf'), 'Memo to the board');
});

test('render --format png writes a PNG next to the input when -o is not given', async () => {
  file('page.md', '# One page\n');
  const r = await quire(['render', 'page.md', '--format', 'png']);
  assert.is(r.code, 0, r.stderr);
  const png = readFileSync(path.join(dir, 'page.png'));
  assert.equal([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test('render --watch renders again when the file is saved, and Ctrl-C (SIGINT) ends it with exit code 0', async () => {
  file('live.md', '# First draft\n');
  const proc = spawn(QUIRE, ['render', 'live.md', '-o', 'live.pdf', '--watch'], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  try {
    await until(() => stdout.includes('wrote live.pdf') && stderr.includes('watching'), 30_000);
    assert.match(await pdfText('live.pdf'), 'First draft');
    file('live.md', '# Second draft\n');
    await until(() => stdout.split('wrote live.pdf').length - 1 >= 2, 30_000);
    assert.match(await pdfText('live.pdf'), 'Second draft');
  } finally {
    proc.kill('SIGINT');
  }
  const [code] = (await once(proc, 'exit')) as [number | null];
  assert.is(code, 0, stderr);
});

test('validate prints each error as file:line:col and exits 1; warnings alone exit 0', async () => {
  file('broken.md', '# Title\n\nIntro.\n\nSee [the table](#missing-table).\n');
  const bad = await quire(['validate', 'broken.md', '--strict']);
  assert.is(bad.code, 1, bad.stderr);
  assert.match(bad.stdout, /^broken\.md:5:1: links to #missing-table, .* \[BROKEN_REFERENCE\]$/m);
  assert.match(bad.stderr, 'broken.md: 1 error');
  const lenient = await quire(['validate', 'broken.md']);
  assert.is(lenient.code, 0, lenient.stderr);
  assert.match(lenient.stdout, /^broken\.md:5:1: warning: links to #missing-table/m);
  file('fine.md', '# Title\n\nIntro.\n');
  const good = await quire(['validate', 'fine.md']);
  assert.is(good.code, 0, good.stderr);
  assert.is(good.stdout, '');
  assert.is(good.stderr, 'fine.md: valid\n');
});

test('bulk renders one file per CSV row into the folder, prints a summary table and exits 1 for the failed row', async () => {
  const documentId = await saveLetter(api);
  file('rows.csv', 'name\nAda\nBob,extra\nEve\n');
  const r = await quire(['bulk', documentId, 'rows.csv', '-o', 'letters']);
  assert.is(r.code, 1, r.stderr);
  assert.equal(readdirSync(path.join(dir, 'letters')).sort(), ['letter-001.pdf', 'letter-003.pdf']);
  assert.match(await pdfText('letters/letter-003.pdf'), 'Dear Eve,');
  assert.match(r.stdout, /^ROW\s+STATUS\s+OUTPUT OR ERROR$/m);
  assert.match(r.stdout, /^2\s+COMPLETED\s+letters\/letter-001\.pdf$/m);
  assert.match(r.stdout, /^3\s+FAILED\s+row 3: /m);
  assert.match(r.stdout, /^3 rows: 2 completed, 1 failed$/m);
  // Not a terminal: plain progress lines instead of a bar.
  assert.match(r.stderr, /^completed: 3\/3 done, 1 failed$/m);
});

test('tools merge writes the merged PDF; pdfinfo counts the pages of both inputs', async () => {
  file('a.pdf', await makePdf(1));
  file('b.pdf', await makePdf(2));
  const r = await quire(['tools', 'merge', 'a.pdf', 'b.pdf', '-o', 'ab.pdf']);
  assert.is(r.code, 0, r.stderr);
  assert.match(await popplerOutput('pdfinfo', [], readFileSync(path.join(dir, 'ab.pdf'))), /^Pages:\s+3$/m);
});

test('jobs lists the jobs newest first as a table, filtered by kind and status; a bad status is one line and exit code 1', async () => {
  const r = await quire(['jobs', '--kind', 'tools,bulk', '--limit', '100']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^CREATED\s+KIND\s+ACTION\s+STATUS\s+ID\s+DETAIL$/);
  const listed = (await api.get('/api/v1/dev/jobs?kind=tools,bulk&limit=100')).body.items;
  assert.ok(listed.length >= 2, 'the merge and the bulk render of the tests before');
  assert.equal(lines.slice(1).map((l) => l.split(/\s+/)[5]), listed.map((j: any) => j.id));
  assert.match(r.stdout, /^\S+ \S+\s+bulk\s+bulk-render\s+COMPLETED\s+[0-9a-f-]{36}\s+2\/3 done, 1 failed$/m);
  assert.match(r.stdout, /^\S+ \S+\s+tools\s+pdf\.merge\s+COMPLETED\s+[0-9a-f-]{36}$/m);
  const json = await quire(['jobs', '--status', 'completed', '--kind', 'render', '--json']);
  assert.is(json.code, 0, json.stderr);
  assert.ok(JSON.parse(json.stdout).items.every((j: any) => j.kind === 'render' && j.status === 'COMPLETED'));
  const bad = await quire(['jobs', '--status', 'QUEUED']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /^quire: VALIDATION_FAILED: status must be one of [^\n]+\n$/);
});

test('lens extract prints the typed fields of a text PDF as JSON', async () => {
  file('invoice.pdf', await renderFile(api, invoiceDocument()));
  const r = await quire(['lens', 'extract', 'invoice.pdf', '--field', 'total:number:total amount due', '--field', 'invoice_number:string']);
  assert.is(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.data, { total: INVOICE.total, invoice_number: INVOICE.number });
});

test('a named profile of ~/.config/quire/config.json is used with --profile; an unknown one is a usage error (exit 2)', async () => {
  mkdirSync(path.join(dir, '.config/quire'), { recursive: true });
  file('.config/quire/config.json', JSON.stringify({ profiles: { local: { url: server.baseUrl, apiKey: OWNER_KEY } } }));
  file('ok.md', '# Fine\n');
  try {
    const r = await quire(['--profile', 'local', 'validate', 'ok.md'], { QUIRE_URL: undefined, QUIRE_API_KEY: undefined });
    assert.is(r.code, 0, r.stderr);
    const unknown = await quire(['--profile', 'prod', 'validate', 'ok.md']);
    assert.is(unknown.code, 2);
    assert.match(unknown.stderr, /^quire: no profile "prod" in .*config\.json \(it has local\)\n$/);
  } finally {
    rmSync(path.join(dir, '.config'), { recursive: true, force: true });
  }
});

test('a bad API key is one line on stderr and exit code 1', async () => {
  file('any.md', '# Any\n');
  const r = await quire(['render', 'any.md'], { QUIRE_API_KEY: 'ak_NotAKeyOfThisServer0123456789abcdefghijkl' });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^quire: UNAUTHENTICATED: [^\n]+\n$/);
  assert.not.ok(existsSync(path.join(dir, 'any.pdf')));
});

test('usage mistakes exit 2 with one line; --help exits 0 and names every command', async () => {
  const missing = await quire(['render']);
  assert.is(missing.code, 2);
  assert.is(missing.stderr, "quire: missing required argument 'file'\n");
  const noServer = await quire(['validate', 'any.md'], { QUIRE_URL: undefined });
  assert.is(noServer.code, 2);
  assert.match(noServer.stderr, /^quire: no server URL: set QUIRE_URL and QUIRE_API_KEY/);
  const help = await quire(['--help']);
  assert.is(help.code, 0);
  for (const command of ['render', 'validate', 'bulk', 'tools', 'lens', 'jobs']) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
  const toolsHelp = await quire(['tools', '--help']);
  assert.is(toolsHelp.code, 0);
  assert.match(toolsHelp.stdout, 'quire tools merge a.pdf b.pdf -o ab.pdf');
  assert.match(toolsHelp.stdout, /pdf\/watermark/);
});

test.run();
