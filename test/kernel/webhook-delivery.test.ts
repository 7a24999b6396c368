// Webhook delivery against loopback "canary" receivers started by the test; nothing leaves 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UrlPolicy } from '../../sdk/url-policy.js';
import { postJson } from '../../sdk/outbound-http.js';
import { FORBIDDEN_WEBHOOK_HEADERS, WebhookDelivery } from '../../kernel/webhook-delivery.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Canary {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1 that records each request, then lets `respond` answer it (or not). */
async function startCanary(respond: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, s) => s.end('ok')): Promise<Canary> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const lenient = () => new UrlPolicy({ allowPrivateNetwork: true, resolver: async () => [] });
const strict = () => new UrlPolicy({ allowPrivateNetwork: false, resolver: async () => [] });
const payload = { event: 'job.completed', jobType: 'tools', jobId: 'j-1', status: 'COMPLETED', completedAt: '2025-01-01T00:00:00.000Z' };

test('posts the JSON event with the Quire user agent and content type', async () => {
  const canary = await startCanary();
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    const outcome = await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/hooks/quire?k=1` }, payload);
    assert.is(outcome.delivered, true);
    assert.is(outcome.status, 200);
    assert.is(outcome.error, undefined);
    assert.type(outcome.durationMs, 'number');
    assert.is(canary.received.length, 1);
    const [r] = canary.received;
    assert.is(r!.method, 'POST');
    assert.is(r!.url, '/hooks/quire?k=1');
    assert.is(r!.headers['user-agent'], 'Quire-Webhook/1.0');
    assert.is(r!.headers['content-type'], 'application/json');
    assert.is(r!.headers.host, `127.0.0.1:${canary.port}`);
    assert.equal(JSON.parse(r!.body), payload);
  } finally {
    await canary.close();
  }
});

test('sends the custom header when both its name and value are given', async () => {
  const canary = await startCanary();
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/`, webhookAuth: { headerName: 'X-Hook-Token', headerValue: 's3cret' } }, payload);
    assert.is(canary.received[0]!.headers['x-hook-token'], 's3cret');
    assert.is(canary.received[0]!.headers.authorization, undefined);
  } finally {
    await canary.close();
  }
});

test('sends HTTP Basic authentication when a user name is given', async () => {
  const canary = await startCanary();
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/`, webhookAuth: { basicAuthUsername: 'quire', basicAuthPassword: 'pässword' } }, payload);
    const expected = `Basic ${Buffer.from('quire:pässword', 'utf8').toString('base64')}`;
    assert.is(canary.received[0]!.headers.authorization, expected);
  } finally {
    await canary.close();
  }
});

test('sends both the custom header and Basic authentication when both are given', async () => {
  const canary = await startCanary();
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    await delivery.deliver(
      { webhookUrl: `http://127.0.0.1:${canary.port}/`, webhookAuth: { headerName: 'X-Api-Key', headerValue: 'k-1', basicAuthUsername: 'u', basicAuthPassword: 'p' } },
      payload,
    );
    const h = canary.received[0]!.headers;
    assert.is(h['x-api-key'], 'k-1');
    assert.is(h.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
  } finally {
    await canary.close();
  }
});

test('lets Basic authentication overwrite a custom header named Authorization in any case', async () => {
  const canary = await startCanary();
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    await delivery.deliver(
      { webhookUrl: `http://127.0.0.1:${canary.port}/`, webhookAuth: { headerName: 'aUtHoRiZaTiOn', headerValue: 'Bearer t', basicAuthUsername: 'u', basicAuthPassword: '' } },
      payload,
    );
    const raw = canary.received[0]!.headers;
    assert.is(raw.authorization, `Basic ${Buffer.from('u:').toString('base64')}`);
  } finally {
    await canary.close();
  }
});

test('builds headers without letting a custom header replace the ones Quire sets', () => {
  const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
  for (const name of ['Content-Type', 'user-agent', 'Host', 'Content-Length', 'Transfer-Encoding', 'Connection']) {
    const headers = delivery.buildHeaders({ webhookUrl: 'http://x.example/', webhookAuth: { headerName: name, headerValue: 'evil' } });
    assert.equal(headers, { 'Content-Type': 'application/json', 'User-Agent': 'Quire-Webhook/1.0' }, name);
    assert.ok(FORBIDDEN_WEBHOOK_HEADERS.includes(name.toLowerCase()), name);
  }
});

test('builds no custom header from a name without a value and no Basic header from an empty user name', () => {
  const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
  const headers = delivery.buildHeaders({ webhookUrl: 'http://x.example/', webhookAuth: { headerName: 'X-Token', basicAuthUsername: '', basicAuthPassword: 'p' } });
  assert.equal(headers, { 'Content-Type': 'application/json', 'User-Agent': 'Quire-Webhook/1.0' });
});

test('reports a 500 answer as not delivered and does not retry', async () => {
  const canary = await startCanary((_q, s) => {
    s.statusCode = 500;
    s.end('boom');
  });
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    const outcome = await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/` }, payload);
    assert.is(outcome.delivered, false);
    assert.is(outcome.status, 500);
    assert.match(outcome.error ?? '', '500');
    await new Promise((r) => setTimeout(r, 100));
    assert.is(canary.received.length, 1);
  } finally {
    await canary.close();
  }
});

test('gives up on a receiver that never answers and reports the timeout', async () => {
  const canary = await startCanary(() => {
    /* never answer */
  });
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 300 });
    const outcome = await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/` }, payload);
    assert.is(outcome.delivered, false);
    assert.is(outcome.status, undefined);
    assert.match(outcome.error ?? '', 'timed out');
    assert.is(canary.received.length, 1);
  } finally {
    await canary.close();
  }
});

test('reports a receiver that closes the connection without answering as not delivered', async () => {
  const canary = await startCanary((req) => req.socket.destroy());
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    const outcome = await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/` }, payload);
    assert.is(outcome.delivered, false);
    assert.is(outcome.status, undefined);
    assert.ok(outcome.error);
  } finally {
    await canary.close();
  }
});

test('treats a redirect as a non-2xx answer and never contacts its Location', async () => {
  const second = await startCanary();
  const first = await startCanary((_q, s) => {
    s.writeHead(302, { Location: `http://127.0.0.1:${second.port}/stolen` });
    s.end();
  });
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 2000 });
    const outcome = await delivery.deliver({ webhookUrl: `http://127.0.0.1:${first.port}/` }, payload);
    assert.is(outcome.delivered, false);
    assert.is(outcome.status, 302);
    await new Promise((r) => setTimeout(r, 100));
    assert.is(first.received.length, 1);
    assert.is(second.received.length, 0);
  } finally {
    await first.close();
    await second.close();
  }
});

test('stops reading a huge response body and still reports the status', async () => {
  const canary = await startCanary((_q, s) => {
    s.writeHead(200, { 'Content-Type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < 200 && s.write(chunk)) sent++;
      if (sent < 200 && !s.destroyed) s.once('drain', pump);
      else s.end();
    };
    s.on('error', () => undefined);
    pump();
  });
  try {
    const delivery = new WebhookDelivery(lenient(), { timeoutMs: 5000 });
    const outcome = await delivery.deliver({ webhookUrl: `http://127.0.0.1:${canary.port}/` }, payload);
    assert.is(outcome.delivered, true);
    assert.is(outcome.status, 200);
  } finally {
    await canary.close();
  }
});

for (const spelling of ['http://127.0.0.1:PORT/', 'http://127.1:PORT/', 'http://[::ffff:127.0.0.1]:PORT/', 'http://localhost:PORT/', 'http://2130706433:PORT/']) {
  test(`refuses ${spelling} in production and the loopback canary receives nothing`, async () => {
    const canary = await startCanary();
    const logged: Array<[string, string, object]> = [];
    try {
      const delivery = new WebhookDelivery(strict(), { timeoutMs: 2000, log: (level, msg, fields) => logged.push([level, msg, fields]) });
      const outcome = await delivery.deliver({ webhookUrl: spelling.replace('PORT', String(canary.port)) }, payload);
      assert.is(outcome.delivered, false);
      assert.is(outcome.status, undefined);
      assert.match(outcome.error ?? '', /^webhookUrl .*loopback/);
      assert.match(outcome.error ?? '', 'QUIRE_ALLOW_PRIVATE_NETWORK=true');
      await new Promise((r) => setTimeout(r, 50));
      assert.is(canary.received.length, 0);
      assert.is(logged.length, 1);
      assert.is(logged[0]![0], 'warn');
    } finally {
      await canary.close();
    }
  });
}

test('connects to the address the policy checked while keeping the original Host', async () => {
  const canary = await startCanary();
  const asked: string[] = [];
  try {
    const policy = new UrlPolicy({
      allowPrivateNetwork: true,
      resolver: async (host) => {
        asked.push(host);
        return host === 'hooks.test' ? [{ address: '127.0.0.1', family: 4 }] : [];
      },
    });
    const delivery = new WebhookDelivery(policy, { timeoutMs: 2000 });
    const outcome = await delivery.deliver({ webhookUrl: `http://hooks.test:${canary.port}/in` }, payload);
    assert.is(outcome.delivered, true, outcome.error);
    assert.equal(asked, ['hooks.test']);
    assert.is(canary.received.length, 1);
    assert.is(canary.received[0]!.headers.host, `hooks.test:${canary.port}`);
  } finally {
    await canary.close();
  }
});

test('connects to an IPv4-mapped literal at its unmapped IPv4 address when private targets are allowed', async () => {
  const canary = await startCanary();
  try {
    const outcome = await new WebhookDelivery(lenient(), { timeoutMs: 2000 }).deliver({ webhookUrl: `http://[::ffff:127.0.0.1]:${canary.port}/` }, payload);
    assert.is(outcome.delivered, true, outcome.error);
    assert.is(canary.received[0]!.headers.host, `[::ffff:7f00:1]:${canary.port}`);
  } finally {
    await canary.close();
  }
});

test('refuses a made-up hostname that resolves to loopback in production without connecting', async () => {
  const canary = await startCanary();
  try {
    const policy = new UrlPolicy({ allowPrivateNetwork: false, resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
    const outcome = await new WebhookDelivery(policy, { timeoutMs: 2000 }).deliver({ webhookUrl: `http://hooks.test:${canary.port}/` }, payload);
    assert.is(outcome.delivered, false);
    assert.match(outcome.error ?? '', 'webhookUrl (hooks.test) resolves to 127.0.0.1, a loopback address');
    assert.is(canary.received.length, 0);
  } finally {
    await canary.close();
  }
});

test('gives up within the deadline when DNS never answers', async () => {
  const policy = new UrlPolicy({ allowPrivateNetwork: true, resolver: () => new Promise(() => undefined) });
  const outcome = await new WebhookDelivery(policy, { timeoutMs: 300 }).deliver({ webhookUrl: 'http://slow-dns.test/' }, payload);
  assert.is(outcome.delivered, false);
  assert.match(outcome.error ?? '', 'timed out');
});

test('never throws, even for a URL that cannot be parsed or a logger that throws', async () => {
  const delivery = new WebhookDelivery(strict(), {
    timeoutMs: 300,
    log: () => {
      throw new Error('logger broke');
    },
  });
  const outcome = await delivery.deliver({ webhookUrl: 'not a url' }, payload);
  assert.is(outcome.delivered, false);
  assert.match(outcome.error ?? '', 'webhookUrl is not a valid absolute URL');
});

test('postJson throws the policy reason for a refused URL', async () => {
  try {
    await postJson(strict(), 'http://10.0.0.1/', {}, { timeoutMs: 300 });
    assert.unreachable('postJson should have thrown');
  } catch (err) {
    assert.instance(err, Error);
    assert.match((err as Error).message, 'the URL points to 10.0.0.1, a private address');
  }
});

test.run();
