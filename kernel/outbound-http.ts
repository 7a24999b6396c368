// Server-side POSTs that obey the URL policy: connection pinned to the checked address, no redirects, hard deadline.
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
  const controller = new AbortController();
  const timeoutError = new Error(`request timed out after ${opts.timeoutMs} ms`);
  const timer = setTimeout(() => controller.abort(timeoutError), opts.timeoutMs);
  try {
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
    });
    aborted.catch(() => undefined);

    // DNS may hang far longer than our deadline; the race keeps the deadline honest.
    const decision = await Promise.race([policy.check(url, opts.subject), aborted]);
    if (!decision.allowed) throw new Error(decision.reason);

    const target = decision.url;
    const payload = Buffer.from(JSON.stringify(body) ?? 'null', 'utf8');
    const isHttps = target.protocol === 'https:';
    const bareHost = target.hostname.replace(/^\[(.*)\]$/, '$1');
    const isLiteral = target.hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(target.hostname);

    const options: https.RequestOptions = {
      method: 'POST',
      // A literal is connected to as checked (IPv4-mapped forms unmapped); a name goes through the pinned lookup.
      host: isLiteral ? decision.address : bareHost,
      port: target.port === '' ? (isHttps ? 443 : 80) : Number(target.port),
      path: `${target.pathname}${target.search}`,
      lookup: pinnedLookup(decision.address, decision.family),
      family: decision.family,
      agent: false,
      signal: controller.signal,
      headers: {
        ...opts.headers,
        Host: target.host,
        'Content-Type': 'application/json',
        'Content-Length': String(payload.length),
      },
    };
    // TLS verifies the certificate against the original name, not the pinned address.
    if (isHttps && !isLiteral) options.servername = bareHost;

    return await new Promise<{ status: number }>((resolve, reject) => {
      let status: number | null = null;
      let settled = false;
      const finish = (err?: Error): void => {
        if (settled) return;
        settled = true;
        req.destroy();
        if (status !== null) resolve({ status });
        else reject(controller.signal.aborted ? (controller.signal.reason as Error) : (err ?? new Error('connection closed without a response')));
      };
      const req = (isHttps ? https : http).request(options, (res) => {
        status = res.statusCode ?? 0;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= MAX_RESPONSE_BYTES) finish();
        });
        res.on('end', () => finish());
        res.on('error', () => finish());
        res.on('close', () => finish());
      });
      req.on('error', (err) => finish(err));
      req.on('close', () => finish());
      req.end(payload);
    });
  } finally {
    clearTimeout(timer);
  }
}
