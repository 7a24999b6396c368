// html-to-pdf: prints an uploaded HTML file to PDF with headless Chromium; every request of the page passes the outbound URL policy.
import { definePlugin } from '../../sdk/index.js';
import { contract } from './contract.js';

/** The spec's limit of an HTML file for HTML-to-PDF. */
export const MAX_HTML_BYTES = 50 * 1024 * 1024;

export default definePlugin({
  manifest: {
    id: 'html-to-pdf',
    version: '1.0.0',
    kernel: '^1.0.0',
    kind: 'tool',
    description: 'Prints an uploaded HTML file to PDF with headless Chromium, loading external resources only through the outbound URL policy.',
    actions: [
      {
        name: 'convert.html-to-pdf',
        export: 'htmlToPdf',
        route: { method: 'POST', path: '/tools/convert/html-to-pdf' },
        summary: 'Convert an HTML file to PDF',
        description:
          'Creates a tools job that loads the uploaded HTML (at most 50 MB) in headless Chromium, waits up to 60 s for it and its resources to load, and prints it to one PDF. ' +
          'Backgrounds are always printed. External stylesheets, fonts, images and frames load over http(s) only through the outbound URL policy ' +
          '(no file: URLs, no loopback, private, link-local or metadata addresses, every redirect hop checked); WebSockets never connect. ' +
          'The job `result` counts the requests loaded, refused and failed, and lists the first refused and failed ones with the reason.',
        files: [{ field: 'fileId', accept: ['text/html'], maxBytes: MAX_HTML_BYTES }],
        credits: { perRequest: 1 },
      },
    ],
    requires: [{ name: 'chromium', probe: ['chromium', '--version'], install: 'apt-get install chromium (or set plugins.html-to-pdf.settings.executablePath and make `chromium` answer --version)' }],
    outbound: true,
    // One warm browser per thread. The deadline covers a browser start (30 s), the page load (60 s),
    // printing (30 s) and closing; idle threads, and their browsers, are kept 10 minutes.
    pool: { maxThreads: 2, maxQueue: 8, memoryMb: 1024, timeoutMs: 150_000, maxBacklog: 64, idleTimeoutMs: 600_000, runBetweenTasks: true },
    errors: {
      SETTINGS_INVALID: 'The operator settings of html-to-pdf (plugins.html-to-pdf.settings) are invalid; the message names the setting.',
      BROWSER_UNAVAILABLE: 'Chromium could not be started; the job can be sent again.',
      PAGE_LOAD_TIMEOUT: 'The page did not finish loading (its resources and scripts) within the page-load limit (60 s).',
      PAGE_CRASHED: "Chromium's renderer or browser stopped while loading or printing the page.",
      PAGE_SETTINGS_INVALID: 'Chromium refused the page settings, e.g. margins that leave no room for content.',
      PRINT_FAILED: 'Chromium could not print the page, or did not finish printing in time.',
    },
  },
  contract,
  worker: new URL('./worker.js', import.meta.url),
});
