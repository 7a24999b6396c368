// The @quire/client package (clients/typescript) can be published as it is: its package.json depends on exactly the
// packages its code imports, at the versions Quire is built and tested with, and its version is the one the CLI reports.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { CLIENT_VERSION } from '../../clients/typescript/src/version.js';

const ROOT = path.resolve(new URL('../../../', import.meta.url).pathname);
const PACKAGE = path.join(ROOT, 'clients/typescript');
const pkg = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The npm packages the client's sources import (type-only imports included). */
const imported = new Set(
  sources(path.join(PACKAGE, 'src')).flatMap((file) =>
    ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
      .map((f) => f.fileName)
      .filter((spec) => !spec.startsWith('.') && !spec.startsWith('node:'))
      .map((spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)),
  ),
);

test('the client package depends on each package its code imports, at the version the repository uses', () => {
  assert.equal([...imported].sort(), ['cli-progress', 'commander', 'openapi-fetch']);
  for (const name of imported) assert.is(pkg.dependencies[name], root.dependencies[name], name);
  assert.equal(Object.keys(pkg.dependencies).sort(), [...imported].sort());
});

test('the package is an ES module exporting its entry and the quire command, and the CLI reports its version', () => {
  assert.is(pkg.name, '@quire/client');
  assert.is(pkg.type, 'module');
  assert.is(pkg.exports['.'].default, './dist/index.js');
  assert.is(pkg.exports['.'].types, './dist/index.d.ts');
  assert.is(pkg.bin.quire, './dist/cli/main.js');
  assert.ok(pkg.files.includes('dist'));
  assert.is(CLIENT_VERSION, pkg.version);
  assert.is(root.bin.quire, 'scripts/quire.mjs');
  assert.ok(statSync(path.join(ROOT, 'scripts/quire.mjs')).mode & 0o111, 'scripts/quire.mjs is executable (npx quire runs it)');
});

test.run();
