// One warm Chromium per worker thread: launched on first use, replaced after N jobs, after a crash or a hang; the next job's context and page are opened while the thread waits.
//
// The browser is a child process of the server, spawned from this thread and driven over a pipe
// (`--remote-debugging-pipe`). When the thread ends (idle timeout, job deadline, pool recycle, server exit) the
// pipe closes and Chromium exits on its own; the user-data dir it leaves is swept by the next launch.
import { mkdtemp, mkdir, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { writeFontConfig } from './fontconfig.js';
import { RefusalProxy } from './refusal-proxy.js';
import { reapGroup, reapPath } from '../../engines/process/reaper.js';
import { processAlive } from '../../engines/process/alive.js';

const DIR_PREFIX = 'quire-chromium-';

/**
 * The flags of the brief plus what closes the network: every request Chromium makes itself goes to the refusal
 * proxy (loopback included), host names resolve to nothing but the proxy's address, and pop-ups are not opened.
 */
function chromiumArgs(proxyUrl: string): string[] {
  // puppeteer adds `--headless=new` (headless: true) and `--remote-debugging-pipe` (pipe: true).
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-domain-reliability',
    '--no-pings',
    '--dns-prefetch-disable',
    '--block-new-web-contents',
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  ];
}

/**
 * Profile preferences written before the launch. WebRTC sends STUN packets over UDP straight from the renderer,
 * past proxy and interception; `disable_non_proxied_udp` leaves it only the (refusing) proxy.
 */
const PREFERENCES = { webrtc: { ip_handling_policy: 'disable_non_proxied_udp', multiple_routes_enabled: false, nonproxied_udp_enabled: false } };

export interface LaunchSettings {
  executablePath: string;
  fontDirs: string[];
  recycleAfterJobs: number;
}

/** An incognito context with one blank page, for exactly one job; the job closes the context. */
export interface JobPage {
  context: BrowserContext;
  page: Page;
}

interface Spare extends JobPage {
  browser: Browser;
}

export class BrowserHost {
  #browser: Browser | null = null;
  /** The next job's context and page, being opened or ready; null when none is prepared. */
  #spare: Promise<Spare | null> | null = null;
  #launching: Promise<Browser> | null = null;
  #userDataDir: string | null = null;
  /** Takes the browser's process group and profile off the reaper's list (engines/process/reaper.ts). */
  #unreap: () => void = () => undefined;
  #jobs = 0;
  #proxy: Promise<RefusalProxy> | null = null;
  #swept = false;
  /** Browsers launched by this thread (the first one is the cold start). */
  launches = 0;

  /** A connected browser for one more job: the warm one, or a fresh one when it is spent or gone. */
  async acquire(settings: LaunchSettings): Promise<Browser> {
    if (this.#browser && (!this.#browser.connected || this.#jobs >= settings.recycleAfterJobs)) await this.discard();
    if (!this.#browser) {
      this.#launching ??= this.#launch(settings).finally(() => (this.#launching = null));
      this.#browser = await this.#launching;
      this.#jobs = 0;
    }
    this.#jobs++;
    return this.#browser;
  }

  /**
   * A fresh incognito context with a blank page for one job, of the warm browser (acquire). Opening the page
   * starts the context's renderer process, most of a warm job's set-up time; `prepare` does it between jobs,
   * and this takes the prepared pair when it belongs to the browser the job got.
   */
  async open(settings: LaunchSettings): Promise<JobPage> {
    const browser = await this.acquire(settings);
    const spare = this.#spare ? await this.#spare : null;
    this.#spare = null;
    if (spare && spare.browser === browser && !spare.page.isClosed()) return { context: spare.context, page: spare.page };
    if (spare) void spare.context.close().catch(() => undefined);
    return openJobPage(browser);
  }

  /**
   * Starts opening the next job's context and page while the thread waits for work (after a job has closed its
   * own). Nothing is loaded into the page until that job has attached its request interception, so it is as
   * confined as one opened on demand; it serves exactly one job. Skipped for a browser due for replacement.
   */
  prepare(settings: LaunchSettings): void {
    const browser = this.#browser;
    if (!browser || this.#spare || !browser.connected || this.#jobs >= settings.recycleAfterJobs) return;
    this.#spare = openJobPage(browser).then(
      (opened) => ({ ...opened, browser }),
      () => null, // the next job opens its own, and finds out what is wrong with the browser
    );
  }

  /** Ends the browser at once (SIGKILL: a hung one would not answer a polite close) and removes its profile. */
  async discard(): Promise<void> {
    const browser = this.#browser;
    const dir = this.#userDataDir;
    this.#browser = null;
    this.#userDataDir = null;
    // A prepared context dies with its browser.
    this.#spare = null;
    if (browser) {
      const proc = browser.process();
      browser.removeAllListeners();
      // The pipe is closed from our side first, so the kill cannot surface as a read error on it.
      await settleWithin(browser.disconnect(), 2_000);
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGKILL');
        await exited;
      }
    }
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    this.#unreap();
    this.#unreap = () => undefined;
  }

  async #launch(settings: LaunchSettings): Promise<Browser> {
    this.#proxy ??= RefusalProxy.start();
    const proxy = await this.#proxy;
    if (!this.#swept) {
      this.#swept = true;
      await sweepOrphanProfiles();
    }
    const dir = await mkdtemp(path.join(tmpdir(), DIR_PREFIX));
    // Were the server killed (the pipe's end stops the browser, not the removal of its profile), the reaper removes it.
    const unreapDir = reapPath(dir);
    await mkdir(path.join(dir, 'Default'));
    await writeFile(path.join(dir, 'Default', 'Preferences'), JSON.stringify(PREFERENCES));
    const fontConfig = await writeFontConfig(dir, settings.fontDirs);
    try {
      const browser = await puppeteer.launch({
        executablePath: settings.executablePath,
        headless: true,
        pipe: true,
        userDataDir: dir,
        args: chromiumArgs(proxy.url),
        env: { ...process.env, FONTCONFIG_FILE: fontConfig },
        // puppeteer's defaults allow pop-ups; they would be pages outside interception.
        ignoreDefaultArgs: ['--disable-popup-blocking'],
        // Signals belong to the server process, not to this worker thread.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 30_000,
        protocolTimeout: 120_000,
        waitForInitialPage: false,
      });
      // A browser that dies resets its pipes; unheard, that error would end this worker thread.
      for (const stream of browser.process()?.stdio ?? []) stream?.on('error', () => undefined);
      this.#userDataDir = dir;
      // puppeteer starts the browser as the leader of a process group of its own (detached).
      const unreapGroup = reapGroup(browser.process()?.pid);
      this.#unreap = () => {
        unreapGroup();
        unreapDir();
      };
      this.launches++;
      return browser;
    } catch (err) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      unreapDir();
      throw err;
    }
  }
}

async function openJobPage(browser: Browser): Promise<JobPage> {
  // Downloads (a response with Content-Disposition: attachment) are refused rather than written to disk.
  const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
  try {
    return { context, page: await context.newPage() };
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/** A profile younger than this may belong to a browser still starting (its lock not written yet). */
const STARTING_MS = 120_000;

/**
 * Profiles of browsers that ended with their thread are left in the temp dir. A running Chromium holds a
 * `SingletonLock` naming `<host>-<pid>` in its profile; a profile whose lock names a dead process, or that has no
 * lock (Chromium removes it when the pipe closes and it exits) and is past its start-up, is removed.
 */
async function sweepOrphanProfiles(): Promise<void> {
  const root = tmpdir();
  let names: string[];
  try {
    names = (await readdir(root)).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  const host = hostname();
  for (const name of names) {
    const dir = path.join(root, name);
    let owner: string | null = null;
    try {
      owner = await readlink(path.join(dir, 'SingletonLock'));
    } catch {
      /* no lock */
    }
    if (owner === null) {
      const age = await stat(dir).then((st) => Date.now() - st.mtimeMs, () => 0);
      if (age < STARTING_MS) continue;
    } else {
      const m = /^(.*)-(\d+)$/.exec(owner);
      if (!m || m[1] !== host || processAlive(Number(m[2]))) continue;
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

