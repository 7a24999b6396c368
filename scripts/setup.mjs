// `npm run setup`: installs what is missing (npm packages, Debian packages when root) and builds.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

const DEBIAN_PACKAGES = [
  // [shell check that proves it is installed, Debian package]
  ['command -v qpdf', 'qpdf'],
  ['command -v pdfinfo', 'poppler-utils'],
  ['command -v pdftotext', 'poppler-utils'],
  ['command -v pdftoppm', 'poppler-utils'],
  // Tests make throw-away TLS certificates for loopback https servers.
  ['command -v openssl', 'openssl'],
  // HTML to PDF at run time (plugins/html-to-pdf); also the render benchmark's peer.
  ['command -v chromium', 'chromium'],
  // LibreOffice: office conversions at run time; in tests, the independent reader of DOCX and ODT output.
  ['command -v soffice', 'libreoffice-writer-nogui'],
  ['/usr/bin/python3 -c "import uno"', 'python3-uno'],
  // Chinese, Japanese and Korean for LibreOffice (DOCX/ODT converted to PDF, and the tests' reader of them): the
  // PDF renderer has its own fonts (npm), LibreOffice sees only the system's.
  ['test -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 'fonts-noto-cjk'],
  // Not fonts-noto-core (Thai, Devanagari, Hebrew, Arabic): LibreOffice gets Quire's bundled files on its font
  // path instead (engines/libreoffice/fonts.ts); a system "Noto Sans" would also change the office pictures.
  // Independent readers of DOCX and ODT output in the tests (Debian's Python, not the one on PATH).
  ['/usr/bin/python3 -c "import docx"', 'python3-docx'],
  ['/usr/bin/python3 -c "import odf.opendocument"', 'python3-odf'],
  // CSL styles and locales: citations and bibliographies in DOCX and ODT are formatted by citeproc with these.
  ['test -f /usr/share/citation-style-language/styles/apa.csl', 'citation-style-language-styles'],
  ['test -f /usr/share/citation-style-language/locales/locales-en-US.xml', 'citation-style-language-locales'],
  // A font that is not bundled, for the test of the operator's font folders (test/e2e/render-font-dirs.test.ts).
  ['test -f /usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', 'fonts-dejavu-core'],
  // The C allocator `npm start` runs the server with (scripts/with-allocator.sh): a render costs about a fifth less CPU.
  ['test -f /usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2', 'libjemalloc2'],
  // PostgreSQL: the shared store of a multi-node deployment; the tests start throw-away clusters with its initdb.
  ['ls /usr/lib/postgresql/*/bin/initdb', 'postgresql'],
  // The DOCX benchmark's peer (bench/office.ts prints pandoc's Markdown → DOCX beside Quire's).
  ['command -v pandoc', 'pandoc'],
];

function say(msg) {
  process.stdout.write(`setup: ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`setup: "${cmd} ${args.join(' ')}" failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`setup: Node ${process.versions.node} is too old; Quire needs Node >= 20.19.\n`);
  process.exit(1);
}

// 1. npm packages, reinstalled only when package-lock.json or a patch of a package (patches/, applied
//    by patch-package after every install) changed.
const hash = createHash('sha256').update(readFileSync('package-lock.json'));
for (const name of readdirSync('patches').sort()) hash.update(`\0${name}\0`).update(readFileSync(`patches/${name}`));
const lockHash = hash.digest('hex');
const marker = 'node_modules/.quire-lock-hash';
if (!existsSync(marker) || readFileSync(marker, 'utf8') !== lockHash) {
  say('installing npm packages (npm ci)');
  // `npm ci` refuses a lock that lacks the other platforms' prebuilt binaries of a native package
  // (a registry mirror without them); `npm install` then installs the same pinned versions.
  // onnxruntime-node's install script would download GPU providers from GitHub; its CPU binaries ship in the package.
  const npmEnv = { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' };
  const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit', env: npmEnv });
  if (ci.status !== 0) {
    say('npm ci failed; installing with npm install (same lock, this platform only)');
    run('npm', ['install', '--no-audit', '--no-fund'], { env: npmEnv });
  }
  writeFileSync(marker, lockHash);
} else {
  say('npm packages up to date');
}

// 2. Debian packages the tools and tests use.
const has = (check) => spawnSync('sh', ['-c', check], { stdio: 'ignore' }).status === 0;
const missing = [...new Set(DEBIAN_PACKAGES.filter(([check]) => !has(check)).map(([, pkg]) => pkg))];
if (missing.length) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    process.stderr.write(`setup: missing Debian packages: ${missing.join(' ')}\nsetup: run as root:  apt-get update && apt-get install -y ${missing.join(' ')}\n`);
    process.exit(1);
  }
  say(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env });
} else {
  say('Debian packages present');
}

// 3. Build.
say('building (tsc)');
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
say('building the web console (vite → dist/console)');
run('npm', ['run', '--silent', 'build:console']);
say('building the plugin SDK package (dist/sdk-package)');
run(process.execPath, ['scripts/build-sdk.mjs']);
say(`ready: npm start (server on :8080), npm test; tsc ${execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '--version']).toString().trim()}`);
