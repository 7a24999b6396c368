// Per-request webhook calls (spec "Events" → "Delivery rules"): one attempt, bounded time, never throws.
import { performance } from 'node:perf_hooks';
import { postJson } from '../sdk/outbound-http.js';
import type { UrlPolicy } from '../sdk/url-policy.js';
import type { WebhookConfig } from './model.js';

/**
 * Header names a caller's `webhookAuth.headerName` may not use (lower-case): Quire sets them itself, or they
 * change how the message is framed. `buildHeaders` drops them; the job-creation layer rejects them with 400.
 */
export const FORBIDDEN_WEBHOOK_HEADERS: readonly string[] = Object.freeze([
  'host',
  'content-length',
  'content-type',
  'user-agent',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-connection',
]);

export interface DeliveryOutcome {
  delivered: boolean;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface WebhookDeliveryOptions {
  timeoutMs: number;
  userAgent?: string;
  log?: (level: 'info' | 'warn', msg: string, fields: object) => void;
}

/** Where a call went, without path or query: those may carry the receiver's secrets. */
function targetOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return '(invalid URL)';
  }
}

export class WebhookDelivery {
  readonly #policy: UrlPolicy;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #log: WebhookDeliveryOptions['log'];

  constructor(policy: UrlPolicy, opts: WebhookDeliveryOptions) {
    this.#policy = policy;
    this.#timeoutMs = opts.timeoutMs;
    this.#userAgent = opts.userAgent ?? 'Quire-Webhook/1.0';
    this.#log = opts.log;
  }

  /** One attempt, never throws, never retried. */
  async deliver(webhook: WebhookConfig, payload: Record<string, unknown>): Promise<DeliveryOutcome> {
    const started = performance.now();
    let outcome: DeliveryOutcome;
    try {
      const { status } = await postJson(this.#policy, webhook.webhookUrl, payload, {
        headers: this.buildHeaders(webhook),
        timeoutMs: this.#timeoutMs,
        subject: 'webhookUrl',
      });
      const delivered = status >= 200 && status < 300;
      outcome = delivered
        ? { delivered, status, durationMs: 0 }
        : { delivered, status, error: `receiver answered HTTP ${status}`, durationMs: 0 };
    } catch (err) {
      outcome = { delivered: false, error: err instanceof Error ? err.message : String(err), durationMs: 0 };
    }
    outcome.durationMs = Math.round(performance.now() - started);
    try {
      this.#log?.(outcome.delivered ? 'info' : 'warn', outcome.delivered ? 'webhook delivered' : 'webhook not delivered', {
        target: targetOf(webhook.webhookUrl),
        ...outcome,
      });
    } catch {
      // A broken logger must not turn a delivery into a thrown error.
    }
    return outcome;
  }

  /**
   * Custom header when both name and value are given; Basic auth when a user name is given (the password may be
   * empty). With both, a custom header named Authorization (any case) is overwritten by Basic; otherwise both go.
   */
  buildHeaders(webhook: WebhookConfig): Record<string, string> {
    const headers: Record<string, string> = {};
    const auth = webhook.webhookAuth;
    if (auth?.headerName && auth.headerValue !== undefined && !FORBIDDEN_WEBHOOK_HEADERS.includes(auth.headerName.toLowerCase())) {
      headers[auth.headerName] = auth.headerValue;
    }
    if (auth?.basicAuthUsername !== undefined && auth.basicAuthUsername !== '') {
      for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
      const credentials = Buffer.from(`${auth.basicAuthUsername}:${auth.basicAuthPassword ?? ''}`, 'utf8').toString('base64');
      headers.Authorization = `Basic ${credentials}`;
    }
    // Set last so nothing above can displace them.
    headers['Content-Type'] = 'application/json';
    headers['User-Agent'] = this.#userAgent;
    return headers;
  }
}
