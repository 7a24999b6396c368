// `quire tools <tool> <files…>` (merge, split, rotate, watermark, … every tools route) and `quire lens extract|ocr|classify`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { QuireClient } from '../client.js';
import { TOOL_ROUTES, type ToolName } from '../tool-routes.js';
import { collect, jsonValues, writeOutput } from './arguments.js';
import { UsageError } from './usage-error.js';

/** `merge` → `pdf/merge`; a full route (`pdf/merge`) or action name (`pdf.merge`) as it is. */
function resolveTool(name: string): ToolName {
  const full = name.includes('/') ? name : name.includes('.') ? name.replace('.', '/') : undefined;
  if (full) {
    if (full in TOOL_ROUTES) return full as ToolName;
    throw new UsageError(`no tool ${name}; quire tools --help lists them`);
  }
  const matches = Object.keys(TOOL_ROUTES).filter((r) => r.split('/').pop() === name);
  if (matches.length === 1) return matches[0] as ToolName;
  throw new UsageError(matches.length ? `${name} is ambiguous: ${matches.join(', ')}` : `no tool ${name}; quire tools --help lists them`);
}

function fileInput(file: string) {
  return { bytes: readFileSync(file), filename: path.basename(file) };
}

async function runTool(client: QuireClient, tool: ToolName, files: string[], params: Record<string, unknown>, output: string | undefined): Promise<void> {
  const run = await client.tools.run(tool, { files: files.map(fileInput), params });
  if (run.output) {
    const file = output ?? `${tool.split('/').pop()}-output${path.extname(files[0] ?? '') || '.bin'}`;
    writeOutput(file, run.output);
    process.stderr.write(`wrote ${file} (${run.output.length} bytes)\n`);
  }
  if (run.result && Object.keys(run.result).length) process.stdout.write(`${JSON.stringify(run.result, null, 2)}\n`);
}

export function toolsCommand(program: Command, client: () => QuireClient): void {
  const list = Object.entries(TOOL_ROUTES).map(([name, r]) => `  ${name.padEnd(28)} ${r.summary}`).join('\n');
  program
    .command('tools')
    .description('Run a PDF tool or a conversion on local files and write its output')
    .argument('<tool>', 'merge, split, rotate, watermark, … or the full route (pdf/merge)')
    .argument('<files...>', 'the input files, in order')
    .option('-o, --output <file>', 'where to write the output file')
    .option('--param <name=value>', 'a field of the tool\'s body (repeatable); JSON values are parsed: angle=90, ranges=\'["1-2"]\'', collect, [])
    .option('--params <json>', 'the tool\'s body fields as one JSON object')
    .addHelpText('after', `\nExamples:\n  quire tools merge a.pdf b.pdf -o ab.pdf\n  quire tools split book.pdf --param 'ranges=["1-3","4-"]' -o parts.zip\n  quire tools rotate scan.pdf --param angle=90 -o upright.pdf\n  quire tools watermark a.pdf --param text=DRAFT -o draft.pdf\n\nTools:\n${list}`)
    .action(async (tool: string, files: string[], flags: { output?: string; param: string[]; params?: string }) => {
      let params: Record<string, unknown> = {};
      if (flags.params) {
        try {
          params = JSON.parse(flags.params) as Record<string, unknown>;
        } catch (err) {
          throw new UsageError(`--params: ${(err as Error).message}`);
        }
      }
      await runTool(client(), resolveTool(tool), files, { ...params, ...jsonValues(flags.param, '--param') }, flags.output);
    });

  const lens = program.command('lens').description('Document understanding: extract fields, OCR, classify (prints the result as JSON)');
  lens
    .command('extract')
    .description('Extract typed fields from a PDF, DOCX, ODT or Markdown file')
    .argument('<file>', 'the document')
    .option('--field <name:type[:description]>', 'a field to find (repeatable); type: string, number, boolean, date or array', collect, [])
    .option('--pages <spec>', 'pages to read, e.g. 1-3 (PDF only)', collect, [])
    .addHelpText('after', '\nExample:\n  quire lens extract receipt.pdf --field total:number --field date:date --field vendor:string:"who issued it"')
    .action(async (file: string, flags: { field: string[]; pages: string[] }) => {
      if (!flags.field.length) throw new UsageError('give at least one --field name:type');
      const fields: Record<string, { type: string; description?: string }> = {};
      for (const f of flags.field) {
        const [name, type, ...description] = f.split(':');
        if (!name || !type) throw new UsageError(`--field ${f}: expected name:type[:description]`);
        fields[name] = { type, ...(description.length ? { description: description.join(':') } : {}) };
      }
      await runTool(client(), 'lens/extract', [file], { fields, ...(flags.pages.length ? { pages: flags.pages } : {}) }, undefined);
    });
  lens
    .command('ocr')
    .description('The text of a document (text layer first, Tesseract for scanned pages)')
    .argument('<file>', 'the document')
    .option('--format <format>', 'md, text or json', 'md')
    .action(async (file: string, flags: { format: string }) => {
      await runTool(client(), 'lens/ocr', [file], { outputFormat: flags.format }, undefined);
    });
  lens
    .command('classify')
    .description('Which of the given categories a document belongs to')
    .argument('<file>', 'the document')
    .option('--category <name>', 'a category (repeatable, at least two)', collect, [])
    .action(async (file: string, flags: { category: string[] }) => {
      await runTool(client(), 'lens/classify', [file], { categories: flags.category }, undefined);
    });
}
