// The layer rule (docs/architecture.md): imports run one way, server → services → kernel, engines and the
// document language → contracts; plugins see only the SDK, engines, the document language and contracts, never
// the kernel or each other, and they reach the SDK only through its public face (sdk/index.ts, the package
// @quire/plugin-sdk). Checked over every import of every source file, type-only imports included.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(new URL('../../../', import.meta.url).pathname);

/** Which rooms each room may import (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  contracts: [],
  document: ['contracts'],
  // sdk/testing.ts drives a built Quire (its server process, its kernel's pool) found at run time, never by import.
  sdk: ['contracts'],
  engines: ['contracts', 'document', 'sdk'],
  kernel: ['contracts', 'sdk', 'engines'],
  plugins: ['contracts', 'document', 'sdk', 'engines'],
  services: ['contracts', 'document', 'sdk', 'engines', 'kernel'],
  server: ['contracts', 'document', 'sdk', 'engines', 'kernel', 'services'],
  'plugin-template': ['sdk'],
  // The TypeScript client (@quire/client) is published on its own and speaks HTTP only.
  clients: [],
};
const ROOMS = Object.keys(MAY_IMPORT);
/** The SDK modules plugins and the template import: the entries the package `@quire/plugin-sdk` exports (`.`, `./schema`, `./outbound`). */
const SDK_FACE = new Set(['sdk/index.ts', 'sdk/schema.ts', 'sdk/outbound.ts']);
/** The one file above the plugins: the composition root loads the built-in plugin list. */
const PLUGIN_LIST_IMPORTERS = new Set(['server/composition-root.ts']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (name === 'node_modules' || name === 'test') continue;
    if (statSync(path.join(ROOT, rel)).isDirectory()) sourceFiles(rel, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The repository files a source file imports (relative specifiers, `.js` mapped back to `.ts`). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts'));
}

/** `plugins/<id>` for plugin files (each plugin is a room of its own), else the top folder. */
function roomOf(file: string): string {
  const [top, second] = file.split(path.sep);
  return top === 'plugins' && second && !second.endsWith('.ts') ? `plugins/${second}` : top!;
}

const files = ROOMS.flatMap((room) => sourceFiles(room));
const graph = new Map(files.map((f) => [f, importsOf(f)]));

function violations(): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    const fromLayer = from.startsWith('plugins/') ? 'plugins' : from;
    for (const target of targets) {
      const to = roomOf(target);
      if (to === from) continue;
      const toLayer = to.startsWith('plugins/') ? 'plugins' : to;
      if (target === 'plugins/builtin.ts' && PLUGIN_LIST_IMPORTERS.has(file)) continue;
      const allowed = toLayer !== 'plugins' && MAY_IMPORT[fromLayer]?.includes(toLayer);
      if (!allowed) out.push(`${file} imports ${target} (${from} may import ${MAY_IMPORT[fromLayer]?.join(', ') || 'nothing of ours'})`);
      else if (toLayer === 'sdk' && (fromLayer === 'plugins' || fromLayer === 'plugin-template') && !SDK_FACE.has(target)) {
        out.push(`${file} imports ${target} (plugins reach the SDK through its entries ${[...SDK_FACE].join(', ')})`);
      }
    }
  }
  return out;
}

test('finds the source files of every room', () => {
  for (const room of ROOMS) assert.ok(files.some((f) => roomOf(f).startsWith(room)), room);
  assert.ok(files.length > 200, String(files.length));
});

test('no import runs against the layer order', () => {
  assert.equal(violations(), []);
});

test('every import of a source file names a file that exists', () => {
  const missing = [...graph].flatMap(([file, targets]) => targets.filter((t) => !graph.has(t) && !existsAnywhere(t)).map((t) => `${file} → ${t}`));
  assert.equal(missing, []);
});

function existsAnywhere(rel: string): boolean {
  try {
    return statSync(path.join(ROOT, rel)).isFile();
  } catch {
    return false;
  }
}

test('the source files import each other without cycles', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.equal(cycles, []);
});

test('the checker itself refuses a plugin importing an SDK module other than its public face', () => {
  graph.set('plugins/pdf-merge/__probe__.ts', ['sdk/plugin-api.ts', 'sdk/index.ts', 'engines/pdf/load.ts']);
  try {
    const found = violations().filter((v) => v.startsWith('plugins/pdf-merge/__probe__.ts'));
    assert.equal(found, ['plugins/pdf-merge/__probe__.ts imports sdk/plugin-api.ts (plugins reach the SDK through its entries sdk/index.ts, sdk/schema.ts, sdk/outbound.ts)']);
  } finally {
    graph.delete('plugins/pdf-merge/__probe__.ts');
  }
});

test('the checker itself refuses a back-import (a kernel file importing a plugin or a service)', () => {
  graph.set('kernel/__probe__.ts', ['plugins/render-pdf/manifest.ts', 'services/render-service.ts', 'contracts/common.ts']);
  try {
    const found = violations().filter((v) => v.startsWith('kernel/__probe__.ts'));
    assert.is(found.length, 2, found.join('\n'));
  } finally {
    graph.delete('kernel/__probe__.ts');
  }
});

/** Tests, benchmarks and scripts are held to the same length rule as the rooms. */
function allTsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(path.join(ROOT, rel)).isDirectory()) allTsFiles(rel, out);
    else if (/\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Longer files say why at the top, in a comment line starting `Longer than 400 lines:`. */
test('no source file (tests, benchmarks and scripts included) is over 400 lines without a reason written at its top', () => {
  const everything = [...new Set([...ROOMS, 'test', 'bench', 'scripts'].flatMap((dir) => allTsFiles(dir)))];
  assert.ok(everything.length > files.length);
  const long = everything.filter((f) => {
    const text = readFileSync(path.join(ROOT, f), 'utf8');
    return text.split('\n').length > 400 && !/^\/\/ Longer than 400 lines: \S/m.test(text.split('\n').slice(0, 8).join('\n'));
  });
  assert.equal(long, []);
});

test.run();
