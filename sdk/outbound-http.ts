// Server-side requests that obey the URL policy: connection pinned to the checked address, no redirects followed, hard deadline.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { UrlPolicy } from './url-policy.js';

/** Response bytes read (and discarded) before the connection is closed; receivers have nothing more to tell us. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface PostJsonOptions {
  headers?: Record<string, string>;
  /** Deadline for the whole exchange: DNS, connect, TLS, request, response headers and the drained body. */
  timeoutMs: number;
  /** Names the URL in refusal reasons, e.g. 'webhookUrl'. */
  subject?: string;
}

/** The policy refused the URL (nothing was sent); `unresolved` when its host name has no usable DNS answer. */
export class UrlRefusedError extends Error {
  override name = 'UrlRefusedError';
  constructor(
    message: string,
    readonly unresolved: boolean,
  ) {
    super(message);
  }
}

/** A lookup that ignores the name it is asked about and answers with the address the policy checked. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * POSTs `body` as JSON. Throws an Error carrying the policy's reason when the URL is refused, or the
 * network error / timeout; any HTTP answer (3xx included: redirects are never followed) resolves with its status.
 */
export async function postJson(policy: UrlPolicy, url: string, body: unknown, opts: PostJsonOptions): Promise<{ status: number }> {
  const { status } = await postJsonText(policy, url, JSON.stringify(body) ?? 'null', opts);
  return { status };
}

export interface PostJsonTextOptions extends PostJsonOptions {
  /** The first bytes of the answer kept for the caller (default none). */
  keepBytes?: number;
}

/**
 * As postJson, for a body already serialised (a signature covers exactly these bytes); resolves with the status and
 * the first `keepBytes` bytes of the answer.
 */
export async function postJsonText(policy: UrlPolicy, url: string, text: string, opts: PostJsonTextOptions): Promise<{ status: number; body: Buffer }> {
  const payload = Buffer.from(text, 'utf8');
  const { status, body } = await exchange(policy, url, {
    method: 'POST',
    headers: { ...opts.headers, 'Content-Type': 'application/json', 'Content-Length': String(payload.length) },
    payload,
    timeoutMs: opts.timeoutMs,
    subject: opts.subject,
    keepBytes: opts.keepBytes ?? 0,
    readLimit: MAX_RESPONSE_BYTES,
  });
  return { status, body };
}

export interface PostForJsonOptions extends PostJsonOptions {
  /** A response body larger than this fails the request (the transfer stops there). */
  maxBytes: number;
}

/** The deadline passed before the exchange finished; the socket was destroyed. */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`request timed out after ${timeoutMs} ms`);
  }
}

/** The endpoint answered with a status outside 2xx; its body is not kept (it may echo what was sent). */
export class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  constructor(readonly status: number) {
    super(`answered HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`);
  }
}

/**
 * POSTs `body` as JSON to an API and resolves with the parsed JSON of its 2xx answer. Throws UrlRefusedError
 * when the policy refuses the URL, HttpStatusError on another status (redirects are never followed), and an
 * Error on a network failure, the deadline, a body over maxBytes or a body that is not JSON.
 */
export async function postForJson(policy: UrlPolicy, url: string, body: unknown, opts: PostForJsonOptions): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body) ?? 'null', 'utf8');
  const res = await exchange(policy, url, {
    method: 'POST',
    headers: { ...opts.headers, Accept: 'application/json', 'Content-Type': 'application/json', 'Content-Length': String(payload.length), 'Accept-Encoding': 'identity' },
    payload,
    timeoutMs: opts.timeoutMs,
    subject: opts.subject,
    keepBytes: opts.maxBytes,
    readLimit: opts.maxBytes + 1,
  });
  if (res.status < 200 || res.status > 299) throw new HttpStatusError(res.status);
  if (res.truncated) throw new Error(`answered with a body larger than ${opts.maxBytes} bytes`);
  try {
    return JSON.parse(res.body.toString('utf8')) as unknown;
  } catch {
    throw new Error('answered with a body that is not JSON');
  }
}

export interface GetBytesOptions {
  timeoutMs: number;
  /** A body larger than this fails the fetch (the transfer stops there). */
  maxBytes: number;
  subject?: string;
}

/**
 * GETs a resource (an image of a document) under the policy. Resolves with the bytes of a 2xx answer;
 * throws on a refusal, a non-2xx status (redirects included, never followed), a timeout or a body over maxBytes.
 */
export async function getBytes(policy: UrlPolicy, url: string, opts: GetBytesOptions): Promise<{ bytes: Buffer; contentType: string | null }> {
  const res = await exchange(policy, url, { method: 'GET', headers: { Accept: 'image/*' }, timeoutMs: opts.timeoutMs, subject: opts.subject, keepBytes: opts.maxBytes, readLimit: opts.maxBytes + 1 });
  if (res.status < 200 || res.status > 299) throw new Error(`answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`);
  if (res.truncated) throw new Error(`is larger than ${opts.maxBytes} bytes`);
  return { bytes: res.body, contentType: res.contentType };
}

export interface FetchResourceOptions {
  method: 'GET' | 'HEAD';
  /** Sent as given, except `Host` (always the URL's) and `Accept-Encoding` (identity: bodies arrive as they are). */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Body bytes kept; a longer body sets `truncated` and the transfer stops there. */
  maxBytes: number;
  subject?: string;
  /** Aborts the exchange (the page that asked for it went away). */
  signal?: AbortSignal;
}

export interface FetchedResource {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

/**
 * One GET or HEAD under the policy, answered whatever its status: a 3xx comes back with its `Location` for the
 * caller to re-check as a new request (the browser of HTML-to-PDF does exactly that, hop by hop); it is never
 * followed here. Throws on a refusal, a network error or the deadline.
 */
export async function fetchResource(policy: UrlPolicy, url: string, opts: FetchResourceOptions): Promise<FetchedResource> {
  const res = await exchange(policy, url, {
    method: opts.method,
    headers: { ...opts.headers, 'Accept-Encoding': 'identity' },
    timeoutMs: opts.timeoutMs,
    subject: opts.subject,
    keepBytes: opts.maxBytes,
    readLimit: opts.maxBytes + 1,
    signal: opts.signal,
  });
  return { status: res.status, headers: res.headers, body: res.body, truncated: res.truncated };
}

interface ExchangeOptions {
  method: 'GET' | 'HEAD' | 'POST';
  headers: Record<string, string>;
  payload?: Buffer;
  timeoutMs: number;
  subject?: string;
  /** Response bytes kept for the caller. */
  keepBytes: number;
  /** Response bytes read before the connection is closed. */
  readLimit: number;
  signal?: AbortSignal;
}

interface ExchangeResult {
  status: number;
  contentType: string | null;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body went past readLimit and the connection was closed. */
  truncated: boolean;
}

async function exchange(policy: UrlPolicy, url: string, opts: ExchangeOptions): Promise<ExchangeResult> {
  const controller = new AbortController();
  const timeoutError = new RequestTimeoutError(opts.timeoutMs);
  const timer = setTimeout(() => controller.abort(timeoutError), opts.timeoutMs);
  const onCallerAbort = (): void => controller.abort(new Error('request cancelled'));
  if (opts.signal?.aborted) onCallerAbort();
  else opts.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
    });
    aborted.catch(() => undefined);

    // DNS may hang far longer than our deadline; the race keeps the deadline honest.
    const decision = await Promise.race([policy.check(url, opts.subject), aborted]);
    if (!decision.allowed) throw new UrlRefusedError(decision.reason, decision.unresolved === true);

    const target = decision.url;
    const isHttps = target.protocol === 'https:';
    const bareHost = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const isLiteral = target.hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(target.hostname);

    const options: https.RequestOptions = {
      method: opts.method,
      // A literal is connected to as checked (IPv4-mapped forms unmapped); a name goes through the pinned lookup.
      host: isLiteral ? decision.address : bareHost,
      port: target.port === '' ? (isHttps ? 443 : 80) : Number(target.port),
      path: `${target.pathname}${target.search}`,
      lookup: pinnedLookup(decision.address, decision.family),
      family: decision.family,
      agent: false,
      signal: controller.signal,
      headers: { ...opts.headers, Host: target.host },
    };
    // TLS verifies the certificate against the original name, not the pinned address.
    if (isHttps && !isLiteral) options.servername = bareHost;

    return await new Promise<ExchangeResult>((resolve, reject) => {
      let status: number | null = null;
      let contentType: string | null = null;
      let headers: http.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let kept = 0;
      let received = 0;
      let settled = false;
      const finish = (err?: Error): void => {
        if (settled) return;
        settled = true;
        req.destroy();
        // A POST only needs the status; a GET whose deadline passed mid-body has no usable body.
        if (status !== null && !(opts.keepBytes > 0 && controller.signal.aborted)) {
          resolve({ status, contentType, headers, body: Buffer.concat(chunks), truncated: received >= opts.readLimit });
        } else reject(controller.signal.aborted ? (controller.signal.reason as Error) : (err ?? new Error('connection closed without a response')));
      };
      const req = (isHttps ? https : http).request(options, (res) => {
        status = res.statusCode ?? 0;
        contentType = res.headers['content-type'] ?? null;
        headers = res.headers;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (kept < opts.keepBytes) {
            const part = chunk.subarray(0, opts.keepBytes - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (received >= opts.readLimit) finish();
        });
        res.on('end', () => finish());
        res.on('error', (err) => (opts.keepBytes > 0 ? failBody(err) : finish()));
        res.on('close', () => finish());
      });
      // A GET whose body breaks off is a failure, not a short image.
      const failBody = (err: Error): void => {
        if (settled) return;
        settled = true;
        req.destroy();
        reject(controller.signal.aborted ? (controller.signal.reason as Error) : err);
      };
      req.on('error', (err) => finish(err));
      req.on('close', () => finish());
      req.end(opts.payload);
    });
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onCallerAbort);
  }
}
