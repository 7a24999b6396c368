// `npm start`: load settings, start Quire (composition-root.ts) and the HTTP server, stop gracefully on SIGTERM/SIGINT.
import 'reflect-metadata';
import { constants as osConstants } from 'node:os';
import { loadConfig, ConfigError } from '../kernel/config.js';
import { startQuire, type Quire } from './composition-root.js';
import { PluginLoadError } from '../kernel/plugin-registry.js';
import { DataDirLockedError } from '../kernel/store/data-dir-lock.js';
import { createServer } from './app.js';
import { allocatorInUse, allocatorWarning } from '../kernel/allocator.js';
import { startReaper } from '../engines/process/reaper.js';

async function main(): Promise<void> {
  // First, before the worker threads start (they find the reaper's registry in their copy of the environment).
  startReaper();
  let quire: Quire;
  try {
    quire = await startQuire(loadConfig());
  } catch (err) {
    if (err instanceof ConfigError || err instanceof PluginLoadError || err instanceof DataDirLockedError) {
      process.stderr.write(`quire: refusing to start: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const { kernel } = quire;
  const { server, shutdown } = createServer(quire);
  const { port, host } = kernel.config;
  server.on('error', (err) => {
    kernel.log.fatal({ err }, `cannot listen on ${host}:${port}; set PORT to a free port`);
    process.exit(1);
  });
  server.listen(port, host, () => {
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    if (!kernel.config.publicUrlConfigured && actual !== port) {
      kernel.config.publicUrl = kernel.config.publicUrl.replace(/:\d+$/, `:${actual}`);
    }
    const allocator = allocatorInUse();
    const warning = allocatorWarning(allocator, process.env);
    if (warning) kernel.log.warn({ allocator }, warning);
    kernel.log.info({ port: actual, dataDir: kernel.config.dataDir, metadata: kernel.config.databaseUrl ? 'postgresql' : 'data dir', metrics: quire.metrics.enabled ? '/metrics' : 'off', allocator, plugins: [...kernel.registry.plugins.values()].map((p) => `${p.definition.manifest.id}:${p.state}`) }, `Quire listening on http://${host}:${actual}`);
  });

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: the operator will not wait for the drain. Running jobs resume on the next start; the helper
      // processes (LibreOffice, Chromium) and their temp folders go with the reaper (engines/process/reaper.ts).
      kernel.log.warn({ signal }, 'second signal: exiting now; unfinished jobs resume on the next start');
      process.exit(128 + osConstants.signals[signal]);
    }
    stopping = true;
    kernel.log.info({ signal }, 'shutting down: no new requests, letting running jobs finish');
    const drained = await shutdown();
    kernel.log.info({ drained }, drained ? 'all jobs finished; bye' : 'grace period over; unfinished jobs resume on the next start');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main().catch((err) => {
  process.stderr.write(`quire: fatal: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
