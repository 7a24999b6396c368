// `quire validate <file>`: the server's no-render check of Extended Markdown; each finding as file:line:col, exit 1 on errors.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { QuireClient } from '../client.js';
import { collect, keyValues } from './arguments.js';

type Finding = { path: string; message: string; code: string; line?: number; column?: number };

function located(file: string, f: Finding, kind: string): string {
  const where = f.line ? `${file}:${f.line}:${f.column ?? 1}` : `${file}`;
  return `${where}: ${kind}${f.message} [${f.code}]${f.line ? '' : ` (${f.path})`}`;
}

export function validateCommand(program: Command, client: () => QuireClient): void {
  program
    .command('validate')
    .description('Check Extended Markdown without rendering it (no credits): errors as file:line:col, exit code 1 when there are any')
    .argument('<file>', 'an Extended Markdown file')
    .option('--var <name=value>', 'a variable (repeatable)', collect, [])
    .option('--style <presetId>', 'a style preset the document will be rendered with')
    .option('--strict', 'unresolved references are errors instead of warnings')
    .addHelpText('after', '\nExample:\n  quire validate report.md --strict')
    .action(async (file: string, flags: { var: string[]; style?: string; strict?: boolean }) => {
      const variables = keyValues(flags.var, '--var');
      const result = await client().validateMarkdown(readFileSync(file, 'utf8'), {
        ...(Object.keys(variables).length ? { variables } : {}),
        ...(flags.style ? { stylePresetId: flags.style } : {}),
        strict: flags.strict,
      });
      for (const e of result.errors) process.stdout.write(`${located(file, e, '')}\n`);
      for (const w of result.warnings) process.stdout.write(`${located(file, w, 'warning: ')}\n`);
      if (!result.valid) {
        process.stderr.write(`${file}: ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}\n`);
        process.exitCode = 1;
      } else process.stderr.write(`${file}: valid${result.warnings.length ? ` (${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'})` : ''}\n`);
    });
}
