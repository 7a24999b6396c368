// Delivers the organizations' webhook endpoint events (docs/webhooks.md): claims due deliveries from the store under a
// lease, builds each body at the attempt (a download link is fresh), signs it with every valid secret, POSTs it under
// the outbound URL policy, and writes the outcome: delivered, retried later with backoff, or failed for good.
import 'reflect-metadata';
import { createHmac, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { inject, injectable } from 'tsyringe';
import { TOKENS } from '../kernel/tokens.js';
import { postJsonText } from '../sdk/outbound-http.js';
import { bulkEvent } from './bulk-service.js';
import { DownloadLinks } from './download-links.js';
import { JobEvents } from './job-events.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import type { QuireConfig } from '../kernel/config.js';
import type { Clock } from '../kernel/clock.js';
import type { Store, WebhookAttemptOutcome } from '../kernel/store/store.js';
import type { Logger } from '../kernel/logger.js';
import type { EventBus } from '../kernel/events.js';
import { Metrics } from '../kernel/metrics.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../kernel/model.js';

/** How often due deliveries (retries, another node's queued events) are looked for. */
const POLL_MS = 1000;
/** At most one look for due deliveries per this many ms because jobs finished. */
const FINISHED_LOOK_MS = 50;
/** Deliveries attempted at once by this node. */
const MAX_CONCURRENT = 4;
/** A claim outlasts an attempt (its timeout is at most 60 s) by far; a node that dies lets its claims lapse. */
const LEASE_MS = 120_000;
/** The part of a receiver's answer kept in the log. */
const RESPONSE_BYTES = 1024;
/** Each retry waits this many times longer than the one before (60 s, 3.2 min, 10 min, … with the defaults). */
const BACKOFF_FACTOR = 3.2;
const JITTER = 0.2;

/** `t=<unix s>,v1=<hex HMAC-SHA256 of "t.body">` with one v1 per secret, the current one first. */
export function signatureHeader(secrets: string[], unixSeconds: number, body: string): string {
  return [`t=${unixSeconds}`, ...secrets.map((s) => `v1=${createHmac('sha256', s).update(`${unixSeconds}.${body}`).digest('hex')}`)].join(',');
}

/** The delay after failed attempt `n` (from 1): base × 3.2^(n−1), ± 20 % so that receivers coming back are not stampeded. */
export function retryDelayMs(baseMs: number, attempt: number, random = Math.random()): number {
  return Math.round(baseMs * BACKOFF_FACTOR ** (attempt - 1) * (1 - JITTER + 2 * JITTER * random));
}

/** Where a delivery went, without path or query: those may carry the receiver's secrets. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

@injectable()
export class WebhookDispatcher {
  readonly #owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  readonly #running = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | null = null;
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = true;
  #tick: Promise<void> | null = null;
  #again = false;
  readonly #onQueued = (): void => this.wake();
  /** Set while a look for due deliveries is scheduled after finished jobs. */
  #soon: NodeJS.Timeout | null = null;
  /**
   * A job's finish queued its event's deliveries in the same write (a bulk item's has none): looked for within
   * FINISHED_LOOK_MS, once for all the jobs that finish meanwhile, so that a busy server (hundreds of jobs a second,
   * most organizations without endpoints) does not spend a claim on each.
   */
  readonly #onFinished = (job: { bulk?: unknown }): void => {
    if (job.bulk || this.#soon || this.#stopped) return;
    this.#soon = setTimeout(() => {
      this.#soon = null;
      this.wake();
    }, FINISHED_LOOK_MS);
    this.#soon.unref();
  };

  constructor(
    @inject(TOKENS.Config) private readonly config: QuireConfig,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.UrlPolicy) private readonly policy: UrlPolicy,
    @inject(TOKENS.Events) private readonly events: EventBus,
    @inject(JobEvents) private readonly jobEvents: JobEvents,
    @inject(DownloadLinks) private readonly links: DownloadLinks,
    @inject(Metrics) private readonly metrics: Metrics,
  ) {}

  /** Polls every second and whenever this node queues deliveries; what a previous run left PENDING goes out first. */
  start(): void {
    this.#stopped = false;
    this.events.on('webhooks.queued', this.#onQueued);
    this.events.on('job.finished', this.#onFinished);
    this.#timer = setInterval(() => this.wake(), POLL_MS);
    this.#timer.unref();
    this.wake();
  }

  /** Looks for due deliveries now (one look at a time; a wake during a look makes one more). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#tick) {
      this.#again = true;
      return;
    }
    this.#tick = this.#claim()
      .catch((err) => this.log.error({ err }, 'webhook deliveries could not be claimed'))
      .finally(() => {
        this.#tick = null;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming and lets the attempts under way settle, for at most `graceMs` (their leases lapse otherwise). */
  async stop(graceMs = this.config.webhookTimeoutMs + 1000): Promise<void> {
    this.#stopped = true;
    this.events.off('webhooks.queued', this.#onQueued);
    this.events.off('job.finished', this.#onFinished);
    if (this.#timer) clearInterval(this.#timer);
    if (this.#soon) clearTimeout(this.#soon);
    this.#soon = null;
    for (const t of this.#timers) clearTimeout(t);
    await this.#tick;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
    await Promise.race([Promise.allSettled([...this.#running]), timeout]);
    clearTimeout(timer);
  }

  #wakeAt(instant: number): void {
    const ms = instant - this.clock.now().getTime();
    if (ms >= POLL_MS) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.wake();
    }, Math.max(0, ms) + 5);
    timer.unref();
    this.#timers.add(timer);
  }

  async #claim(): Promise<void> {
    const room = MAX_CONCURRENT - this.#running.size;
    if (room <= 0) return;
    const claimed = await this.store.claimWebhookDeliveries(this.clock.now().toISOString(), { owner: this.#owner, ms: LEASE_MS }, room);
    for (const delivery of claimed) {
      const p: Promise<void> = this.#attempt(delivery)
        .catch((err) => this.log.error({ err, deliveryId: delivery.id }, 'webhook delivery attempt could not be recorded; it is tried again when its lease lapses'))
        .finally(() => {
          this.#running.delete(p);
          this.wake();
        });
      this.#running.add(p);
    }
  }

  async #attempt(d: WebhookDeliveryRecord): Promise<void> {
    const attempt = d.attempts + 1;
    const at = this.clock.now();
    const endpoint = await this.store.getWebhookEndpoint(d.orgId, d.endpointId);
    const unsent = !endpoint ? 'the endpoint was deleted' : !endpoint.enabled ? 'endpoint disabled' : undefined;
    const body = unsent ? undefined : await this.#body(d);
    if (!endpoint || unsent || !body) {
      const error = unsent ?? 'the job no longer exists';
      await this.#record(d, { patch: { status: 'FAILED', attempts: attempt, nextAttemptAt: null, updatedAt: at.toISOString() }, entry: { attempt, at: at.toISOString(), status: null, durationMs: 0, response: '', error } });
      return;
    }
    const sent = await this.#send(endpoint, d, body, at);
    const ok = sent.status !== null && sent.status >= 200 && sent.status < 300;
    this.metrics.webhookDelivery('endpoint', ok);
    const last = attempt >= this.config.webhookMaxAttempts;
    const next = ok || last ? null : new Date(at.getTime() + retryDelayMs(this.config.webhookRetryBaseMs, attempt)).toISOString();
    const recorded = await this.#record(d, {
      patch: { status: ok ? 'DELIVERED' : last ? 'FAILED' : 'PENDING', attempts: attempt, nextAttemptAt: next, updatedAt: this.clock.now().toISOString() },
      entry: { attempt, at: at.toISOString(), ...sent },
      health: ok ? { ok: true } : { ok: false, disableAfterMs: this.config.webhookDisableAfterMs, reason: sent.error ?? 'unknown' },
    });
    // A retry due before the next poll is looked for when it is due, not up to a poll later.
    if (recorded?.status === 'PENDING' && next) this.#wakeAt(Date.parse(next));
    this.log.info({ deliveryId: d.id, endpointId: d.endpointId, eventId: d.eventId, event: d.event, attempt, target: originOf(endpoint.url), status: sent.status, error: sent.error, durationMs: sent.durationMs, outcome: recorded?.status }, 'webhook endpoint delivery');
  }

  async #record(d: WebhookDeliveryRecord, outcome: WebhookAttemptOutcome): Promise<WebhookDeliveryRecord | undefined> {
    const written = await this.store.recordWebhookAttempt(d.id, this.#owner, outcome);
    if (!written) this.log.warn({ deliveryId: d.id }, 'webhook delivery outcome not recorded: the claim lapsed or the delivery went with its endpoint');
    return written;
  }

  /** One signed POST; never throws: a refusal, a network error or the timeout is the attempt's error. */
  async #send(endpoint: WebhookEndpointRecord, d: WebhookDeliveryRecord, body: Record<string, unknown>, at: Date): Promise<{ status: number | null; durationMs: number; response: string; error: string | null }> {
    const text = JSON.stringify(body);
    const now = at.toISOString();
    const secrets = endpoint.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).map((s) => s.secret);
    const headers = { 'User-Agent': 'Quire-Webhook/1.0', 'Quire-Event-Id': d.eventId, 'Quire-Signature': signatureHeader(secrets, Math.floor(at.getTime() / 1000), text) };
    const started = performance.now();
    try {
      const res = await postJsonText(this.policy, endpoint.url, text, { headers, timeoutMs: this.config.webhookTimeoutMs, subject: 'the endpoint URL', keepBytes: RESPONSE_BYTES });
      const ok = res.status >= 200 && res.status < 300;
      return { status: res.status, durationMs: Math.round(performance.now() - started), response: res.body.toString('utf8'), error: ok ? null : `receiver answered HTTP ${res.status}` };
    } catch (err) {
      return { status: null, durationMs: Math.round(performance.now() - started), response: '', error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** The event's body as of now: the spec's event fields of the job or bulk job, with the event's id, organization and instant. */
  async #body(d: WebhookDeliveryRecord): Promise<Record<string, unknown> | undefined> {
    if (d.subject.kind === 'ping') return d.payload;
    let fields: Record<string, unknown>;
    if (d.subject.kind === 'job') {
      const job = await this.store.getJob(d.orgId, d.subject.id);
      if (!job) return undefined;
      fields = this.jobEvents.payloadOf(job);
    } else {
      const bulk = await this.store.getBulkJob(d.orgId, d.subject.id);
      if (!bulk) return undefined;
      fields = bulkEvent(bulk, this.links.bulkDownloadUrl(bulk));
    }
    return { id: d.eventId, ...fields, orgId: d.orgId, createdAt: d.eventCreatedAt };
  }
}
