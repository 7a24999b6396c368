// Keeps the docs honest: the error table equals docs/errors.md, and every plugin error code is documented.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_TABLE, KERNEL_JOB_ERRORS } from '../../contracts/errors.js';
import { ROOT } from '../helpers/quire-server.js';
import { BUILTIN_BASE, BUILTIN_PLUGINS } from '../../plugins/builtin.js';
import type { PluginDefinition } from '../../sdk/plugin-api.js';
import { ENV_NAME_OF } from '../../kernel/config.js';

const errorsDoc = readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');

/** Rows of the first Markdown table whose header starts with `| <firstColumn> |`. */
function tableRows(markdown: string, header: RegExp): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => header.test(l));
  assert.ok(start >= 0, `no table with header ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push(line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim()));
  }
  return rows;
}

test('docs/errors.md lists exactly the HTTP error table, in order, with the same status, title and hint', () => {
  const rows = tableRows(errorsDoc, /^\|\s*code\s*\|\s*status\s*\|\s*title\s*\|/);
  const expected = Object.entries(ERROR_TABLE).map(([code, d]) => [`\`${code}\``, String(d.status), d.title, d.hint]);
  assert.equal(rows, expected);
});

test('docs/errors.md lists exactly the kernel job error codes with their meaning', () => {
  const rows = tableRows(errorsDoc, /^\|\s*code\s*\|\s*meaning\s*\|/);
  assert.equal(rows, Object.entries(KERNEL_JOB_ERRORS).map(([code, meaning]) => [`\`${code}\``, meaning]));
});

test('docs/errors.md names every error code the built-in plugins declare', async () => {
  for (const spec of BUILTIN_PLUGINS) {
    const def = (await import(new URL(spec, BUILTIN_BASE).href)).default as PluginDefinition;
    for (const code of Object.keys(def.manifest.errors)) assert.ok(errorsDoc.includes(`\`${code}\``), `${def.manifest.id}: ${code} is not in docs/errors.md`);
  }
});

test('docs/configuration.md documents every environment variable the config reads', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
  for (const env of [...Object.values(ENV_NAME_OF), 'QUIRE_CONFIG']) assert.ok(doc.includes(env), `${env} is not in docs/configuration.md`);
});

test('README shows the two quick-start commands', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes('npm run setup && npm start'));
  assert.ok(readme.includes('npm run setup && npm test'));
});

test.run();
