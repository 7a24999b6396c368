#!/usr/bin/env node
// The `quire` command: render, validate, bulk, tools, lens and jobs against a Quire server (docs/cli.md). Exit codes: 0 done,
// 1 a failure (an error answer, a failed job or row, invalid Markdown), 2 a usage mistake (bad option, missing setting).
import { Command, CommanderError } from 'commander';
import { QuireClient } from '../client.js';
import { QuireError } from '../errors.js';
import { CLIENT_VERSION } from '../version.js';
import { resolveConnection, type Connection } from './connection.js';
import { UsageError } from './usage-error.js';
import { renderCommand } from './render-command.js';
import { validateCommand } from './validate-command.js';
import { bulkCommand } from './bulk-command.js';
import { toolsCommand } from './tools-command.js';
import { jobsCommand } from './jobs-command.js';

const program = new Command('quire')
  .description('The Quire command line: render documents, check Markdown, bulk renders, PDF tools, Lens and the job list.\nServer and key: QUIRE_URL and QUIRE_API_KEY, or a profile in ~/.config/quire/config.json (--profile).')
  .version(CLIENT_VERSION)
  .option('--profile <name>', 'use this profile of ~/.config/quire/config.json')
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(`quire: ${text.replace(/^error: /, '')}`) });

let connection: Connection | undefined;
let client: QuireClient | undefined;
/** Made on first use, so that --help and usage mistakes need no settings. */
const clientOf = (): QuireClient => {
  connection ??= resolveConnection(program.opts<{ profile?: string }>().profile);
  client ??= new QuireClient({ baseUrl: connection.url, apiKey: connection.apiKey });
  return client;
};

renderCommand(program, clientOf);
validateCommand(program, clientOf);
bulkCommand(program, clientOf);
toolsCommand(program, clientOf);
jobsCommand(program, clientOf);

/** One line for any error, and its exit code. */
function describe(err: unknown): { line: string; code: number } {
  if (err instanceof UsageError) return { line: err.message, code: 2 };
  if (err instanceof QuireError) return { line: err.message, code: 1 };
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  // fetch's network failures are TypeErrors with the reason in `cause`; other TypeErrors are the client refusing arguments.
  if (e?.cause) return { line: `cannot reach ${connection?.url ?? 'the server'}: ${e.cause.code ?? e.cause.message}`, code: 1 };
  if (e instanceof TypeError) return { line: e.message, code: 2 };
  if (e?.code && e.path) return { line: `${e.path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, code: 1 };
  return { line: e?.message ?? String(err), code: 1 };
}

try {
  await program.parseAsync(process.argv);
  process.exit(process.exitCode ?? 0);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2);
  const { line, code } = describe(err);
  process.stderr.write(`quire: ${line}\n`);
  process.exit(code);
}
