// Builds the plugin SDK package (@quire/plugin-sdk) into dist/sdk-package/: sdk/ and the contracts it imports, as JS with .d.ts, and sdk/package.json.
// Run after the main build (`npm run build` does both); authors install it with `npm install <quire>/dist/sdk-package`.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist/sdk-package');

rmSync(OUT, { recursive: true, force: true });
// A declaration build of the entries (sdk/index.ts, schema.ts, outbound.ts, testing.ts); tsc follows their imports (the rest of sdk/, contracts/plugin-manifest.ts).
execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'sdk/tsconfig.json')], { stdio: 'inherit' });

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'sdk/package.json'), 'utf8'));
const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const problems = [];

// The package's version is the kernel version a plugin built against it declares in `kernel`.
const { KERNEL_VERSION } = await import(pathToFileURL(path.join(OUT, 'sdk/plugin-api.js')).href);
if (pkg.version !== KERNEL_VERSION) problems.push(`sdk/package.json version ${pkg.version} is not KERNEL_VERSION ${KERNEL_VERSION}`);

// Every package the emitted code imports is a dependency, at the version Quire itself is built and tested with.
const files = (dir) => readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n)) : [path.join(dir, n)]));
const imported = new Set();
for (const file of files(OUT).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^'.][^']*)'/g)) {
    if (spec.startsWith('node:')) continue;
    imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  }
}
for (const name of imported) {
  const want = root.dependencies[name];
  if (!want) problems.push(`the SDK imports ${name}, which Quire does not depend on`);
  else if (pkg.dependencies?.[name] !== want) problems.push(`sdk/package.json must depend on ${name} ${want} (it has ${pkg.dependencies?.[name] ?? 'none'})`);
}
for (const name of Object.keys(pkg.dependencies ?? {})) if (!imported.has(name)) problems.push(`sdk/package.json depends on ${name}, which the SDK does not import`);
if (problems.length) {
  console.error(`build-sdk: ${problems.join('; ')}`);
  process.exit(1);
}
writeFileSync(path.join(OUT, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
