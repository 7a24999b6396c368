// `quire jobs`: the organization's jobs (GET /jobs), newest first, as a table or JSON; filters by status and kind.
import type { Command } from 'commander';
import type { QuireClient } from '../client.js';
import { UsageError } from './usage-error.js';

const COLUMNS = ['CREATED', 'KIND', 'ACTION', 'STATUS', 'ID', 'DETAIL'] as const;

export function jobsCommand(program: Command, client: () => QuireClient): void {
  program
    .command('jobs')
    .description('List the organization\'s render, tools and bulk jobs, newest first (failed ones with their error)')
    .option('--status <states>', 'only these states: PENDING, PROCESSING, COMPLETED, FAILED (comma-separated)')
    .option('--kind <kinds>', 'only these kinds: render, tools, bulk (comma-separated)')
    .option('--limit <n>', 'at most this many, 1 to 100', '20')
    .option('--json', 'print the API\'s JSON answer instead of a table')
    .addHelpText('after', '\nExample:\n  quire jobs --status FAILED --limit 50')
    .action(async (flags: { status?: string; kind?: string; limit: string; json?: boolean }) => {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError(`--limit ${flags.limit}: expected a whole number from 1 to 100`);
      const query = { limit, ...(flags.status ? { status: flags.status.toUpperCase() } : {}), ...(flags.kind ? { kind: flags.kind.toLowerCase() } : {}) };
      const { data } = await client().api.GET('/api/v1/dev/jobs', { params: { query } });
      const list = data!;
      if (flags.json) return void process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      const rows = list.items.map((j) => [
        j.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
        j.kind,
        j.action,
        j.status,
        j.id,
        j.status === 'FAILED' ? `${j.errorCode ? `${j.errorCode}: ` : ''}${j.error ?? ''}` : j.items ? `${j.items.completed}/${j.items.total} done${j.items.failed ? `, ${j.items.failed} failed` : ''}` : '',
      ]);
      const widths = COLUMNS.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
      const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
      process.stdout.write(`${[line(COLUMNS), ...rows.map(line)].join('\n')}\n`);
      if (list.nextCursor) process.stderr.write(`more jobs: raise --limit (up to 100) or use GET /jobs?cursor=${list.nextCursor}\n`);
      else if (!rows.length) process.stderr.write('no jobs\n');
    });
}
