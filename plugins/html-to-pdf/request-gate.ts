// Every request of the page passes here: fetched in Node through the outbound URL policy and handed to
// Chromium with request.respond(), or refused. Chromium itself never opens a connection for the page.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { fetchResource, UrlRefusedError, type FetchedResource, type UrlPolicy } from '../../sdk/outbound.js';

export interface GateLimits {
  maxRequests: number;
  maxResourceBytes: number;
  maxTotalBytes: number;
  requestTimeoutMs: number;
}

export interface RequestNote {
  url: string;
  reason: string;
}

/** Schemes a page may use without the network: inline data and the page's own empty documents. */
const LOCAL_SCHEMES = new Set(['data:', 'blob:']);
const LOCAL_DOCUMENTS = new Set(['about:blank', 'about:srcdoc']);

/**
 * Fetches running at once; the rest wait their turn (browsers limit themselves similarly). Bodies are held in
 * memory until handed to Chromium, so this bounds what a page with hundreds of parallel requests costs:
 * at most this many × maxResourceBytes in flight, besides the total.
 */
const MAX_CONCURRENT_FETCHES = 8;

/** Listed notes per kind in the job result; the counts keep going. */
const MAX_NOTES = 50;
const MAX_NOTE_URL = 500;

/** Not passed between the page and the origin: they describe one hop, or are set by the client here. */
const HOP_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'accept-encoding']);
const HOP_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'content-encoding', 'alt-svc']);

type Decoder = (body: Buffer, opts: { maxOutputLength: number }) => Buffer;
const DECODERS: Record<string, Decoder> = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

export class RequestGate {
  readonly #policy: UrlPolicy;
  readonly #limits: GateLimits;
  readonly #deadline: number;
  readonly #controller = new AbortController();
  readonly #inflight = new Set<Promise<void>>();
  #requests = 0;
  #bytes = 0;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  #closed = false;
  loaded = 0;
  refusedCount = 0;
  failedCount = 0;
  readonly refused: RequestNote[] = [];
  readonly failed: RequestNote[] = [];

  /** `deadline`: epoch ms after which no sub-request may still be running (the page-load budget). */
  constructor(policy: UrlPolicy, limits: GateLimits, deadline: number) {
    this.#policy = policy;
    this.#limits = limits;
    this.#deadline = deadline;
  }

  async attach(page: Page): Promise<void> {
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      const handled = this.#handle(req).catch(() => undefined);
      this.#inflight.add(handled);
      void handled.finally(() => this.#inflight.delete(handled));
    });
  }

  /** URLs still being fetched (for the message of a page-load timeout). */
  get pending(): number {
    return this.#inflight.size;
  }

  /** Cancels the fetches still running; later requests are refused. */
  close(): void {
    this.#closed = true;
    this.#controller.abort();
  }

  async #handle(req: HTTPRequest): Promise<void> {
    if (req.isInterceptResolutionHandled()) return;
    const url = req.url();
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return this.#refuse(req, url, 'it is not a valid URL');
    }
    // No network involved: inline data, and the page's own about:blank / srcdoc documents.
    if (LOCAL_SCHEMES.has(parsed.protocol) || LOCAL_DOCUMENTS.has(url)) return void (await req.continue());
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return this.#refuse(req, url, `the ${parsed.protocol.replace(/:$/, '')} scheme is not allowed; only http, https and data URLs load`);
    }
    const method = req.method();
    if (method !== 'GET' && method !== 'HEAD') return this.#refuse(req, url, `${method} requests are not sent; a page being printed may only GET resources`);
    if (this.#closed) return this.#refuse(req, url, 'the page had finished loading');
    if (this.#requests >= this.#limits.maxRequests) return this.#refuse(req, url, `the page made more than ${this.#limits.maxRequests} requests`);
    const syntax = this.#policy.checkSyntax(url, 'the URL');
    if (!syntax.allowed) return this.#refuse(req, url, syntax.reason);

    this.#requests++;
    await this.#turn();
    let res: FetchedResource;
    let budget: number;
    try {
      if (this.#closed) return this.#refuse(req, url, 'the page had finished loading');
      budget = Math.min(this.#limits.maxResourceBytes, this.#limits.maxTotalBytes - this.#bytes);
      if (budget <= 0) return this.#refuse(req, url, `the page's resources passed ${this.#limits.maxTotalBytes} bytes in total`);
      const timeoutMs = Math.min(this.#limits.requestTimeoutMs, this.#deadline - Date.now());
      if (timeoutMs <= 0) return this.#fail(req, url, 'the page-load time was used up', 'timedout');
      res = await fetchResource(this.#policy, url, {
        method,
        headers: forwardedHeaders(req.headers()),
        timeoutMs,
        maxBytes: budget,
        subject: 'the URL',
        signal: this.#controller.signal,
      });
    } catch (err) {
      if (err instanceof UrlRefusedError && !err.unresolved) {
        // The reason would name the address the host resolved to: the caller learns the category, not our network.
        return this.#refuse(req, url, `its host ${parsed.hostname} resolves to an address the outbound URL policy refuses (loopback, private, link-local, reserved or cloud metadata)`);
      }
      return this.#fail(req, url, err instanceof UrlRefusedError ? `its host ${parsed.hostname} could not be resolved` : (err as Error).message, 'failed');
    } finally {
      this.#release();
    }
    if (res.truncated) {
      const limit = budget === this.#limits.maxResourceBytes ? `the ${budget}-byte limit of one resource` : `the ${this.#limits.maxTotalBytes}-byte limit of all resources`;
      return this.#fail(req, url, `it is larger than ${limit}`, 'failed');
    }
    let body: Buffer;
    try {
      body = decode(res, budget);
    } catch (err) {
      return this.#fail(req, url, `its ${String(res.headers['content-encoding'])} body cannot be decoded within the size limit (${(err as Error).message})`, 'failed');
    }
    // Fetches that ran side by side each had the whole remaining budget; together they may not pass it.
    if (this.#bytes + body.length > this.#limits.maxTotalBytes) return this.#fail(req, url, `the page's resources passed ${this.#limits.maxTotalBytes} bytes in total`, 'failed');
    this.#bytes += body.length;
    this.loaded++;
    await req.respond({ status: res.status, headers: responseHeaders(res), body });
  }

  async #turn(): Promise<void> {
    if (this.#running < MAX_CONCURRENT_FETCHES) {
      this.#running++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the slot to the next waiting fetch, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }

  async #refuse(req: HTTPRequest, url: string, reason: string): Promise<void> {
    this.refusedCount++;
    note(this.refused, url, reason);
    await req.abort('blockedbyclient');
  }

  async #fail(req: HTTPRequest, url: string, reason: string, code: 'failed' | 'timedout'): Promise<void> {
    this.failedCount++;
    note(this.failed, url, reason);
    await req.abort(code);
  }
}

function note(list: RequestNote[], url: string, reason: string): void {
  if (list.length < MAX_NOTES) list.push({ url: url.length > MAX_NOTE_URL ? `${url.slice(0, MAX_NOTE_URL)}…` : url, reason });
}

function forwardedHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_REQUEST_HEADERS.has(name.toLowerCase())) out[name] = value;
  return out;
}

function responseHeaders(res: FetchedResource): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || HOP_RESPONSE_HEADERS.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Origins may compress even when asked for identity; the browser gets plain bytes, still within the size limit. */
function decode(res: FetchedResource, maxBytes: number): Buffer {
  const encoding = String(res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '' || res.body.length === 0) return res.body;
  const decoder = DECODERS[encoding];
  if (!decoder) throw new Error(`unknown content-encoding ${encoding}`);
  return decoder(res.body, { maxOutputLength: maxBytes });
}
