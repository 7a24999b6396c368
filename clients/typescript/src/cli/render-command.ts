// `quire render <file>`: Extended Markdown (or document JSON, .json) to PDF, DOCX, ODT or PNG; --watch re-renders on save.
import { readFileSync, watch } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { QuireClient, RenderFormat } from '../client.js';
import { collect, keyValues, writeOutput } from './arguments.js';
import { UsageError } from './usage-error.js';

const FORMATS: RenderFormat[] = ['pdf', 'docx', 'odt', 'png', 'jpeg'];
/** Saves come in bursts (an editor writes, renames, touches): one render after the last event of a burst. */
const DEBOUNCE_MS = 150;

interface RenderFlags {
  output?: string;
  style?: string;
  var: string[];
  format?: string;
  pdfProfile?: string;
  strict?: boolean;
  watch?: boolean;
}

export function renderCommand(program: Command, client: () => QuireClient): void {
  program
    .command('render')
    .description('Render Extended Markdown (or document JSON, a .json file) and write the output')
    .argument('<file>', 'an Extended Markdown file (.md) or document JSON (.json)')
    .option('-o, --output <file>', 'where to write the output (default: the input with the format\'s extension)')
    .option('--style <presetId>', 'a style preset, e.g. system:classic-serif (quire styles: GET /styles)')
    .option('--var <name=value>', 'a variable (repeatable); it goes over the front matter\'s', collect, [])
    .option('--format <format>', `output format: ${FORMATS.join(', ')} (default: the document's document.type, else pdf)`)
    .option('--pdf-profile <profile>', 'standard, pdfa-1b, pdfa-2b, pdfa-3b or pdfua-1')
    .option('--strict', 'unresolved references are errors instead of warnings')
    .option('-w, --watch', 're-render each time the file is saved (Ctrl-C stops)')
    .addHelpText('after', '\nExamples:\n  quire render report.md -o report.pdf --var customer=ACME\n  quire render report.md --format docx --style system:classic-serif\n  quire render report.md --watch')
    .action(async (file: string, flags: RenderFlags) => {
      if (flags.format && !FORMATS.includes(flags.format as RenderFormat)) throw new UsageError(`--format ${flags.format}: expected one of ${FORMATS.join(', ')}`);
      const variables = keyValues(flags.var, '--var');
      if (!flags.watch) {
        await renderOnce(client(), file, flags, variables);
        return;
      }
      await watchAndRender(client(), file, flags, variables);
    });
}

async function renderOnce(client: QuireClient, file: string, flags: RenderFlags, variables: Record<string, string>): Promise<void> {
  const started = Date.now();
  const text = readFileSync(file, 'utf8');
  const vars = Object.keys(variables).length ? { variables } : {};
  // The server holds the request until the render is done (up to 30 s), so a usual render is one round trip.
  const options = { format: flags.format as RenderFormat | undefined, stylePresetId: flags.style, strict: flags.strict, wait: 30 };
  const profile = flags.pdfProfile ? { pdfProfile: flags.pdfProfile as 'standard' } : {};
  let job;
  if (file.endsWith('.json')) {
    const config = JSON.parse(text) as Record<string, unknown>;
    const merged = vars.variables ? { ...config, variables: { ...(config.variables as object), ...variables } } : config;
    job = await client.render(merged, options);
  } else {
    job = await client.render({ markdown: text, ...vars, ...profile }, options);
  }
  const view = await job.waitForCompletion();
  const bytes = await job.download();
  const ext = path.extname(view.filename) || `.${flags.format ?? 'pdf'}`;
  const output = flags.output ?? path.join(path.dirname(file), `${path.basename(file, path.extname(file))}${ext}`);
  writeOutput(output, bytes);
  for (const w of (view.warnings ?? []) as Array<{ message?: string; line?: number; column?: number }>) {
    process.stderr.write(`${file}${w.line ? `:${w.line}:${w.column ?? 1}` : ''}: warning: ${w.message ?? JSON.stringify(w)}\n`);
  }
  const pages = view.pageCount ? `${view.pageCount} page${view.pageCount === 1 ? '' : 's'}, ` : '';
  process.stdout.write(`wrote ${output} (${pages}${bytes.length} bytes, ${Date.now() - started} ms)\n`);
}

/** Renders now and after every save until SIGINT/SIGTERM; a failed render is reported and the watch goes on. */
async function watchAndRender(client: QuireClient, file: string, flags: RenderFlags, variables: Record<string, string>): Promise<void> {
  let running = false;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await renderOnce(client, file, flags, variables);
    } catch (err) {
      process.stderr.write(`quire: ${(err as Error).message}\n`);
    } finally {
      running = false;
    }
    if (again) {
      again = false;
      await run();
    }
  };
  await run();
  // The folder is watched, not the file: editors that save by writing a new file and renaming it replace the file.
  const name = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(path.dirname(path.resolve(file)), (_event, changed) => {
    if (changed !== null && changed.toString() !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), DEBOUNCE_MS);
  });
  process.stderr.write(`watching ${file} (Ctrl-C stops)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
