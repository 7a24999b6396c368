// Worker of convert.html-to-pdf: the uploaded page in a fresh incognito context of this thread's warm Chromium (opened while the thread waited), printed to PDF.
import type { Page } from 'puppeteer-core';
import { PluginError, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { UrlPolicy } from '../../sdk/outbound.js';
import type { HtmlToPdfParams, HtmlToPdfResultBody } from './contract.js';
import { BrowserHost, type JobPage } from './browser-host.js';
import { decodeHtml } from './html-text.js';
import { pdfOptions } from './print-options.js';
import { RequestGate } from './request-gate.js';
import { readSettings, type HtmlToPdfSettings } from './settings.js';

/** This thread's browser; it outlives jobs (that is the point) and dies with the thread. */
const host = new BrowserHost();

/** Closing a context of a healthy browser takes milliseconds; longer means the browser is stuck. */
const CONTEXT_CLOSE_MS = 5_000;

export async function htmlToPdf(input: WorkerInput<HtmlToPdfParams>): Promise<WorkerOutput> {
  const settings = readSettings(input.settings);
  const params = input.params;
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('convert.html-to-pdf received no input file.');
  const html = decodeHtml(file.bytes);
  const policy = new UrlPolicy({ allowPrivateNetwork: input.outbound?.allowPrivateNetwork ?? false });

  const { context, page } = await openJobPage(settings);

  const deadline = Date.now() + settings.pageLoadTimeoutMs;
  const gate = new RequestGate(policy, settings, deadline);
  /** A timeout or crash leaves the browser in doubt: it is replaced instead of reused. */
  let suspect = false;
  try {
    const crashed = pageCrash(page);
    // An alert()/confirm() would stop the page until someone answers it.
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    await gate.attach(page);
    await page.emulateMediaType(params.emulatedMediaType ?? 'print');

    const loadSeconds = settings.pageLoadTimeoutMs / 1000;
    await race(load(page, html, settings.pageLoadTimeoutMs), crashed, deadline, () => {
      const waiting = gate.pending > 0 ? ` ${gate.pending} request${gate.pending === 1 ? ' was' : 's were'} still loading.` : ' Its scripts were still running or it was still parsing.';
      return new PluginError('PAGE_LOAD_TIMEOUT', `The page did not finish loading within ${loadSeconds} s, the limit.${waiting} Remove slow external resources or long-running scripts and send it again.`);
    });
    const printSeconds = settings.printTimeoutMs / 1000;
    const pdf = await race(page.pdf(pdfOptions(params, settings.printTimeoutMs)), crashed, Date.now() + settings.printTimeoutMs + 1000, () => {
      return new PluginError('PRINT_FAILED', `Chromium did not finish printing the page within ${printSeconds} s; a script may keep the page busy, or the document is too long.`);
    });
    const result: HtmlToPdfResultBody = {
      subresources: { loaded: gate.loaded, refused: gate.refusedCount, failed: gate.failedCount },
      refused: gate.refused,
      failed: gate.failed,
    };
    return { file: { bytes: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength), mimeType: 'application/pdf', filename: outputName(file.filename) }, result };
  } catch (err) {
    const failure = explain(err);
    if (failure.code !== 'PAGE_SETTINGS_INVALID') suspect = true;
    throw failure;
  } finally {
    gate.close();
    if (suspect) await host.discard();
    else if (!(await settles(context.close(), CONTEXT_CLOSE_MS))) await host.discard();
    else host.prepare(settings);
  }
}

/**
 * A fresh incognito context and blank page of the warm browser (prepared after the previous job, or opened now). A
 * browser that died since the last job may still look connected until its pipe reports the end; then one fresh
 * browser is started and asked again.
 */
async function openJobPage(settings: HtmlToPdfSettings): Promise<JobPage> {
  let last: unknown;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const opened = await host.open(settings);
      // The first command to the page; it also finds out a prepared page whose browser died while the thread waited.
      await opened.page.setBypassServiceWorker(true);
      return opened;
    } catch (err) {
      last = err;
      await host.discard();
    }
  }
  throw new PluginError(
    'BROWSER_UNAVAILABLE',
    `Chromium could not be started (${(last as Error).message}); the job can be sent again. If it keeps failing the operator should check Chromium (plugins.html-to-pdf.settings.executablePath, now ${settings.executablePath}).`,
  );
}

/** The page's HTML in its about:blank document (no origin with file access), then its web fonts. */
async function load(page: Page, html: string, timeoutMs: number): Promise<void> {
  await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

/** Rejects when the page's renderer dies; never resolves otherwise. */
function pageCrash(page: Page): Promise<never> {
  const crashed = new Promise<never>((_, reject) => {
    page.once('error', (err) => reject(new PluginError('PAGE_CRASHED', `The page crashed Chromium's renderer (${err.message}); it may use too much memory.`)));
  });
  crashed.catch(() => undefined);
  return crashed;
}

/**
 * The step, unless the page crashes or the deadline passes first. puppeteer's own timeouts do not cover everything
 * (setContent's document.write runs unbounded), so the deadline is kept here too.
 */
async function race<T>(step: Promise<T>, crashed: Promise<never>, deadline: number, onTimeout: () => PluginError): Promise<T> {
  step.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([step, crashed, timeout]);
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') throw onTimeout();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function settles(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ok = await Promise.race([p.then(() => true, () => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
  clearTimeout(timer);
  return ok;
}

/** Chromium's and puppeteer's errors as the job's error: what happened and what to change. */
function explain(err: unknown): PluginError {
  if (err instanceof PluginError || (err as PluginError)?.name === 'PluginError') return err as PluginError;
  const message = (err as Error)?.message ?? String(err);
  if (/content area is empty|invalid print parameters/i.test(message)) {
    return new PluginError('PAGE_SETTINGS_INVALID', 'margin: the margins leave no room for content on this page size; make margin.top + margin.bottom and margin.left + margin.right smaller than the page (or choose a larger format).');
  }
  if (/Page range|page ranges/i.test(message)) return new PluginError('PAGE_SETTINGS_INVALID', `Chromium refused the page settings: ${message}`);
  if (/Target closed|Session closed|crashed|disconnected|Connection closed/i.test(message)) {
    return new PluginError('PAGE_CRASHED', `Chromium stopped while printing the page (${message}); the job can be sent again, and a fresh browser will take it.`);
  }
  return new PluginError('PRINT_FAILED', `Chromium could not print the page: ${message}`);
}

function outputName(uploaded: string): string {
  const stem = uploaded.replace(/\.[^.]*$/, '').trim();
  return `${stem || 'document'}.pdf`;
}
