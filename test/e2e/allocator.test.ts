// The server as `npm start` runs it (scripts/with-allocator.sh): jemalloc preloaded when installed, QUIRE_ALLOCATOR=system without it.
// test-stores: once (the start script's allocator choice; no store behaviour of its own).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startExpectingFailure, startServer, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { renderAndDownload } from '../helpers/render-jobs.js';
import { popplerOutput } from '../helpers/poppler.js';

const JEMALLOC = /\/libjemalloc\.so\.2$/m;

/** The shared objects mapped into the server process, read from /proc (not from anything the server says). */
const mappedLibraries = (server: RunningServer) => readFileSync(`/proc/${server.proc.pid}/maps`, 'utf8');

/** The JSON log lines the server printed so far. */
const logLines = (server: RunningServer) =>
  server
    .logs()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const invoice = {
  config: {
    document: { type: 'pdf', title: 'Allocator check' },
    sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Invoice 4711' }, { type: 'text', text: 'Rendered on jemalloc' }] }],
  },
};

async function withServer(env: Record<string, string>, check: (server: RunningServer, api: ApiClient) => Promise<void>): Promise<void> {
  const server = await startServer({ env });
  try {
    await check(server, new ApiClient(server.baseUrl, OWNER_KEY));
  } finally {
    assert.is(await server.stop(), 0, 'the server stops cleanly on SIGTERM (signals reach node: the script execs it)');
    cleanup(server.dataDir);
  }
}

test('runs the server on jemalloc by default, says so at startup, and renders', async () => {
  await withServer({}, async (server, api) => {
    assert.match(mappedLibraries(server), JEMALLOC);
    const lines = logLines(server);
    const listening = lines.find((l) => String(l.msg).startsWith('Quire listening'));
    assert.is(listening?.allocator, 'jemalloc');
    assert.not.ok(lines.some((l) => /jemalloc is not loaded/.test(String(l.msg))), 'no allocator warning');
    const { bytes } = await renderAndDownload(api, '/api/v1/dev/render', invoice, 'PDF', 'application/pdf');
    const text = await popplerOutput('pdftotext', [], bytes);
    assert.match(text, 'Invoice 4711');
    assert.match(text, 'Rendered on jemalloc');
  });
});

test('QUIRE_ALLOCATOR=system keeps the C library\'s malloc, without a warning', async () => {
  await withServer({ QUIRE_ALLOCATOR: 'system' }, async (server, api) => {
    assert.not.match(mappedLibraries(server), JEMALLOC);
    const lines = logLines(server);
    assert.is(lines.find((l) => String(l.msg).startsWith('Quire listening'))?.allocator, 'system');
    assert.not.ok(lines.some((l) => /jemalloc is not loaded/.test(String(l.msg))), 'no allocator warning');
    const { bytes } = await renderAndDownload(api, '/api/v1/dev/render', invoice, 'PDF', 'application/pdf');
    assert.match(await popplerOutput('pdftotext', [], bytes), 'Invoice 4711');
  });
});

test('refuses to start with an unknown QUIRE_ALLOCATOR, naming the allowed values', async () => {
  const { code, output } = await startExpectingFailure({ env: { QUIRE_ALLOCATOR: 'tcmalloc' } });
  assert.is(code, 78);
  assert.match(output, 'QUIRE_ALLOCATOR is "tcmalloc"; it must be jemalloc (the default) or system');
});

test.run();
