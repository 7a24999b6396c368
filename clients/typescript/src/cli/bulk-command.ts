// `quire bulk <documentId> <rows>`: one output per row of a CSV, JSON or XLSX file, a progress bar, the files and a summary.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { QuireClient } from '../client.js';
import type { BulkProgress } from '../bulk.js';
import { table, writeOutput } from './arguments.js';
import { UsageError } from './usage-error.js';

interface BulkFlags {
  output: string;
  format?: string;
}

/** A bar on a terminal; elsewhere (CI logs, pipes) one plain line per change. */
function progressReporter(): { update: (p: BulkProgress) => void; stop: () => void } {
  if (!process.stderr.isTTY) {
    return {
      update: (p) => process.stderr.write(`${p.status.toLowerCase()}: ${p.completedItems + p.failedItems}/${p.totalItems} done, ${p.failedItems} failed\n`),
      stop: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar({ format: 'rendering [{bar}] {value}/{total} | {failed} failed', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update: (p) => {
      if (!started) bar.start(p.totalItems, 0, { failed: 0 });
      started = true;
      bar.update(p.completedItems + p.failedItems, { failed: p.failedItems });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

export function bulkCommand(program: Command, client: () => QuireClient): void {
  program
    .command('bulk')
    .description('Render a saved document once per row of a CSV, JSON or XLSX file into a folder')
    .argument('<documentId>', 'the saved document (POST /documents) whose variables each row fills')
    .argument('<rows>', 'a CSV (header row = variable names), a JSON array of objects or an XLSX file')
    .requiredOption('-o, --output <dir>', 'the folder the outputs are written to')
    .option('--format <format>', 'pdf, docx or odt (default: the document\'s document.type)')
    .addHelpText('after', '\nExample:\n  quire bulk 3f6c…-document-id customers.csv -o letters/\n\nExit code 1 when any row failed (the others are still written).')
    .action(async (documentId: string, rows: string, flags: BulkFlags) => {
      if (flags.format && !['pdf', 'docx', 'odt'].includes(flags.format)) throw new UsageError(`--format ${flags.format}: expected pdf, docx or odt`);
      const bytes = readFileSync(rows);
      const progress = progressReporter();
      let run;
      try {
        run = await client().bulk(documentId, { bytes, filename: path.basename(rows) }, { format: flags.format as 'pdf' | undefined, onProgress: progress.update, timeoutMs: 60 * 60_000 });
      } finally {
        progress.stop();
      }
      const lines: string[][] = [];
      for (const item of run.items) {
        const row = String(item.row ?? item.index + 1);
        if (item.status === 'COMPLETED' && item.filename) {
          const file = path.join(flags.output, item.filename);
          writeOutput(file, await run.downloadItem(item));
          lines.push([row, item.status, file]);
        } else {
          lines.push([row, item.status, item.error ?? '']);
        }
      }
      process.stdout.write(`${table(['ROW', 'STATUS', 'OUTPUT OR ERROR'], lines)}\n`);
      const { totalItems, completedItems, failedItems } = run.job;
      process.stdout.write(`${totalItems} row${totalItems === 1 ? '' : 's'}: ${completedItems} completed, ${failedItems} failed${run.job.error ? ` (${run.job.error})` : ''}\n`);
      if (failedItems > 0 || run.job.status === 'FAILED') process.exitCode = 1;
    });
}
