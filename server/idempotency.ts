// Idempotency-Key on the POSTs that create a job or a resource: the first answer is stored per organization and key and
// replayed for the same request; another request with the key is refused (docs/idempotency.md).
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../contracts/errors.js';
import { idempotencyScope } from '../kernel/idempotency-scope.js';
import type { StoredResponse } from '../kernel/store/store.js';
import type { RouteContext } from './context.js';
import { sendJobCreated } from './job-created.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** 1 to 255 printable ASCII characters (space included; Node drops spaces around a header value). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** The headers of an answer that a replay repeats; the body's bytes are repeated whole. */
const STORED_HEADERS = ['Content-Type', 'Location'];

/**
 * The SHA-256 of a request body computed as its bytes arrive, whoever reads them (a JSON route's reader, a multipart
 * upload's busboy, or nobody): it sees what the HTTP parser hands the request. More than `limit` bytes, or a request
 * that ends early, gives no digest.
 */
class BodyTap {
  readonly #hash = createHash('sha256');
  #bytes = 0;
  #limit = Infinity;
  #result: string | null | undefined;
  readonly #waiting: Array<(digest: string | null) => void> = [];

  update(chunk: Buffer): void {
    if (this.#result !== undefined) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#limit) this.#settle(null);
    else this.#hash.update(chunk);
  }

  end(): void {
    if (this.#result === undefined) this.#settle(this.#hash.digest('hex'));
  }

  abort(): void {
    this.#settle(null);
  }

  set limit(bytes: number) {
    this.#limit = bytes;
    if (this.#bytes > bytes) this.#settle(null);
  }

  /** Resolves when the body ended (its digest) or was cut off or too large (null). */
  digest(): Promise<string | null> {
    return this.#result !== undefined ? Promise.resolve(this.#result) : new Promise((resolve) => this.#waiting.push(resolve));
  }

  #settle(result: string | null): void {
    if (this.#result !== undefined) return;
    this.#result = result;
    for (const resolve of this.#waiting.splice(0)) resolve(result);
  }
}

const taps = new WeakMap<IncomingMessage, BodyTap>();

/**
 * Installs the body tap of a POST that carries an Idempotency-Key. Called by the server's request listener, before
 * anything can read the body: the parser hands every body chunk to `push`, which the tap wraps (and `null` at the end).
 */
export function tapRequestBody(req: IncomingMessage): void {
  if (req.method !== 'POST' || req.headers['idempotency-key'] === undefined) return;
  const tap = new BodyTap();
  taps.set(req, tap);
  const push = req.push;
  req.push = function (this: IncomingMessage, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) tap.end();
    else tap.update(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : (chunk as Buffer));
    return push.call(this, chunk, encoding);
  };
  req.once('close', () => {
    if (!req.complete) tap.abort();
  });
}

/** The request's Idempotency-Key; undefined without one, 400 when it is not 1 to 255 printable ASCII characters. */
export function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new HttpError('VALIDATION_FAILED', `The ${IDEMPOTENCY_HEADER} header must be 1 to 255 printable ASCII characters (a UUID is a good key).`, [
      { path: `header.${IDEMPOTENCY_HEADER}`, message: 'must be 1 to 255 printable ASCII characters', code: 'INVALID_FIELD' },
    ]);
  }
  return key;
}

/** Sends a problem for an error, or the answer `send` makes. */
export type Answer = (send: () => Promise<void> | void) => Promise<void>;

/**
 * Answers a request with an Idempotency-Key (authenticated, within its rate limit): a replay of the key's stored answer
 * for the same request (422 for another, 409 while the first is in flight), else `handle`'s answer, stored before it is
 * sent (an answer of status 500 or more is not: the key is released and a retry runs again). A key whose server died
 * mid-request answers with the job that request admitted, when it got that far. `bodyLimit` bounds the body read.
 */
export async function answerIdempotently(ctx: RouteContext, key: string, bodyLimit: number, handle: () => Promise<void>, answer: Answer): Promise<void> {
  const { kernel, req } = ctx;
  const tap = taps.get(req);
  if (!tap) throw new Error('The request has no body tap: the server\'s request listener calls tapRequestBody first.');
  tap.limit = bodyLimit;
  const orgId = ctx.principal!.orgId;
  const owner = randomUUID();
  const leaseMs = kernel.config.idempotencyLeaseMs;
  const now = kernel.clock.now().getTime();
  const begun = await kernel.store.beginIdempotency(orgId, key, {
    owner,
    now: new Date(now).toISOString(),
    leaseUntil: new Date(now + leaseMs).toISOString(),
    expiresAt: new Date(now + kernel.config.idempotencyTtlSeconds * 1000).toISOString(),
  });
  if (begun.state === 'in-flight') {
    const seconds = Math.max(1, Math.ceil((Date.parse(begun.leaseUntil) - now) / 1000));
    throw new HttpError('IDEMPOTENCY_IN_FLIGHT', `A request with this ${IDEMPOTENCY_HEADER} is still being answered; retry in ${seconds} s to get its answer.`, undefined, { 'Retry-After': String(seconds) });
  }
  if (begun.state === 'done') {
    if ((await fingerprint(req, tap)) !== begun.fingerprint) {
      throw new HttpError('IDEMPOTENCY_KEY_REUSED', `This ${IDEMPOTENCY_HEADER} was used for another request (method, path, query or body differ); use a new key for a new request.`);
    }
    replay(ctx.res, begun.response);
    return;
  }
  let send: () => Promise<void> | void = handle;
  if (begun.state === 'taken-over') {
    // The server that held the key died. If its request admitted a job, that job is the answer; else the request runs.
    const found = await kernel.store.findJobByIdempotencyKey(orgId, key);
    ctx.log.info({ idempotencyKey: key, found: found ? (found.kind === 'bulk' ? found.bulk.id : found.job.id) : null }, 'idempotency key taken over from a server that died');
    if (found) send = () => sendJobCreated(ctx, found);
  }
  await runAndStore(ctx, key, owner, tap, () => idempotencyScope.run({ orgId, key }, () => answer(send)));
}

/** Runs the request with its answer held back, renewing the key's lease meanwhile; stores the answer, then sends it. */
async function runAndStore(ctx: RouteContext, key: string, owner: string, tap: BodyTap, run: () => Promise<void>): Promise<void> {
  const { kernel, req, res, log } = ctx;
  const orgId = ctx.principal!.orgId;
  const leaseMs = kernel.config.idempotencyLeaseMs;
  const renewal = setInterval(() => {
    const until = new Date(kernel.clock.now().getTime() + leaseMs).toISOString();
    kernel.store.renewIdempotency(orgId, key, owner, until).catch((err: unknown) => log.warn({ err }, 'idempotency lease not renewed'));
  }, Math.max(1, Math.floor(leaseMs / 3)));
  const held = holdAnswer(res);
  let stored = false;
  try {
    await run();
    const response = held.response();
    if (response && response.status < 500) {
      // Whatever the handler left unread is read now, through the tap: the fingerprint covers the whole body.
      if (!req.complete) req.resume();
      const digest = await tap.digest();
      if (digest !== null) stored = await kernel.store.completeIdempotency(orgId, key, owner, { fingerprint: fingerprintOf(req, digest), response });
    }
  } catch (err) {
    log.error({ err }, 'the answer of an idempotent request could not be stored');
  } finally {
    clearInterval(renewal);
    if (!stored) await kernel.store.releaseIdempotency(orgId, key, owner).catch((err: unknown) => log.warn({ err }, 'idempotency key not released'));
    held.send();
  }
}

/** Reads the rest of the body through the tap; its fingerprint, or null when it is too large or cut off. */
async function fingerprint(req: IncomingMessage, tap: BodyTap): Promise<string | null> {
  if (!req.complete) req.resume();
  const digest = await tap.digest();
  return digest === null ? null : fingerprintOf(req, digest);
}

/** What makes two requests the same: method, URL (path and query as sent) and the body's bytes. */
function fingerprintOf(req: IncomingMessage, bodyDigest: string): string {
  return createHash('sha256').update(`${req.method} ${req.url}\n${bodyDigest}`).digest('hex');
}

function replay(res: ServerResponse, stored: StoredResponse): void {
  res.statusCode = stored.status;
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Idempotency-Replayed', 'true');
  res.end(Buffer.from(stored.body, 'base64'));
}

/**
 * Holds back what the handler writes (status and headers stay on `res`, unsent) until `send`, so that the answer is
 * stored before the client can see it and retry. Creating routes answer with one small JSON body.
 */
function holdAnswer(res: ServerResponse): { response(): StoredResponse | undefined; send(): void } {
  const chunks: Buffer[] = [];
  let ended = false;
  const own = res as unknown as Record<'write' | 'end', unknown>;
  const toBuffer = (chunk: unknown, encoding: unknown) => (typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array));
  own.write = (chunk: unknown, encoding?: unknown) => {
    chunks.push(toBuffer(chunk, encoding));
    return true;
  };
  own.end = (chunk?: unknown, encoding?: unknown) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    ended = true;
    return res;
  };
  return {
    response() {
      if (!ended) return undefined;
      const headers: Record<string, string> = {};
      for (const name of STORED_HEADERS) {
        const value = res.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      return { status: res.statusCode, headers, body: Buffer.concat(chunks).toString('base64') };
    },
    send() {
      delete own.write;
      delete own.end;
      const body = Buffer.concat(chunks);
      if (ended) res.end(body);
      else if (body.length) res.write(body);
    },
  };
}
