// A third-party plugin built from plugin-template/ in a folder outside the repository, against the installed SDK package, loads through externalPlugins.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, ROOT, tempDir, cleanup, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';

const SDK_PACKAGE = path.join(ROOT, 'dist/sdk-package');
const ROUTE = '/api/v1/dev/tools/text/stats';

let folder: string;
let plugin: string;
let server: RunningServer;
let api: ApiClient;

/** What a folder's compiled modules import that is not relative and not a Node built-in. */
function packageImports(dir: string): Set<string> {
  const out = new Set<string>();
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) packageImports(file).forEach((s) => out.add(s));
    else if (name.endsWith('.js')) for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '([^'.][^']*)'/g)) if (!spec!.startsWith('node:')) out.add(spec!);
  }
  return out;
}

test.before(() => {
  // The package as `npm run build` produces it; built here when this build has not made it yet (or made it before the last compile).
  const sdkBuilt = path.join(SDK_PACKAGE, 'package.json');
  if (!existsSync(sdkBuilt) || statSync(sdkBuilt).mtimeMs < statSync(path.join(ROOT, 'dist/sdk/index.js')).mtimeMs) {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-sdk.mjs')], { stdio: 'inherit' });
  }
  folder = tempDir('quire-third-party-');
  assert.ok(path.relative(ROOT, folder).startsWith('..'), `${folder} lies outside the repository`);
  plugin = path.join(folder, 'text-stats');
  // The author's steps (docs/plugins.md): copy the template, point its imports at the package…
  cpSync(path.join(ROOT, 'plugin-template'), plugin, { recursive: true });
  for (const file of ['manifest.ts', 'contract.ts', 'worker.ts', 'test/text-stats.test.ts']) {
    const at = path.join(plugin, file);
    writeFileSync(at, readFileSync(at, 'utf8').replaceAll(/'(?:\.\.\/)+sdk\/index\.js'/g, "'@quire/plugin-sdk'").replaceAll(/'(?:\.\.\/)+sdk\/(schema|outbound|testing)\.js'/g, "'@quire/plugin-sdk/$1'"));
  }
  // …and install: `npm install <quire>/dist/sdk-package` links the folder into node_modules, as done here; the
  // dev dependencies (TypeScript, Node's types, uvu) are linked from Quire's own node_modules, so nothing is downloaded.
  mkdirSync(path.join(plugin, 'node_modules/@quire'), { recursive: true });
  mkdirSync(path.join(plugin, 'node_modules/@types'), { recursive: true });
  symlinkSync(SDK_PACKAGE, path.join(plugin, 'node_modules/@quire/plugin-sdk'), 'dir');
  for (const dep of ['typescript', '@types/node', 'uvu']) symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(plugin, 'node_modules', dep), 'dir');
  execFileSync(process.execPath, [path.join(plugin, 'node_modules/typescript/bin/tsc'), '-p', path.join(plugin, 'tsconfig.json')], { cwd: plugin, stdio: 'inherit' });
});

test.after(async () => {
  await server?.stop();
  if (server) cleanup(server.dataDir);
  cleanup(folder);
});

test('the copied template compiles against the SDK package alone: its modules import only @quire/plugin-sdk and uvu', () => {
  assert.ok(existsSync(path.join(plugin, 'dist/manifest.js')));
  assert.equal([...packageImports(path.join(plugin, 'dist'))].sort(), ['@quire/plugin-sdk', '@quire/plugin-sdk/schema', '@quire/plugin-sdk/testing', 'uvu', 'uvu/assert']);
  const sdk = JSON.parse(readFileSync(path.join(plugin, 'node_modules/@quire/plugin-sdk/package.json'), 'utf8'));
  const kernelRange = /kernel: '([^']+)'/.exec(readFileSync(path.join(plugin, 'manifest.ts'), 'utf8'))![1];
  assert.is(sdk.name, '@quire/plugin-sdk');
  assert.is(kernelRange, `^${sdk.version}`);
});

test('a server with the folder in externalPlugins serves the plugin route, and the job counts an uploaded file', async () => {
  server = await startServer({ config: { externalPlugins: [path.join(plugin, 'dist/manifest.js')] } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  const listing = (await api.get('/api/v1/dev/plugins')).body.items.find((p: { id: string }) => p.id === 'text-stats');
  assert.equal([listing.builtin, listing.state], [false, 'enabled']);
  // Three lines, seven words, 34 characters; é and è take two bytes each, so 36 bytes.
  const text = 'one two\nthree four five\r\nsix sévèn';
  const fileId = await api.uploadId(new Uint8Array(Buffer.from(text, 'utf8')), 'notes.txt');
  const created = await api.post(ROUTE, { fileId });
  assert.is(created.status, 202, created.bytes.toString());
  const job = await api.waitForJob(created.body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.equal(job.result, { lines: 3, words: 7, characters: [...text].length, bytes: Buffer.byteLength(text) });
  assert.is(job.result.characters, 34);
  assert.is(job.result.bytes, 36);
});

test("the plugin's own tests pass outside the repository through the SDK's testing export", async () => {
  const run = await promisify(execFile)(process.execPath, [path.join(plugin, 'dist/test/text-stats.test.js')], { cwd: plugin, maxBuffer: 8 << 20 }).catch((err) => err);
  assert.is(run.code ?? 0, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(String(run.stdout).replace(/\x1b\[[0-9;]*m/g, ''), /Passed:\s+10\b/);
});

test.run();
