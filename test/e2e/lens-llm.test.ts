// Lens with an operator-configured OpenAI-compatible endpoint, over HTTP: a loopback chat-completions server
// answers from a per-test script and records what Quire sent. Checked: the request (model, strict schema,
// document text, key), answers used when they pass the checks, values not in the document dropped, every
// failure falling back to the built-in engine with its reason, the URL policy without the private-address
// opt-in, and the key never showing in results, API responses or logs.
// test-stores: once (the LLM endpoint's use; Lens jobs reach the store as lens.test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { startServer, startExpectingFailure, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { answerJson, startChatServer, type ChatServer, type ChatRequest } from '../helpers/chat-completions-server.js';
import { startCanary } from '../helpers/loopback-canary.js';
import { lensJob, renderFile } from '../helpers/lens-fixtures.js';

const API_KEY = `sk-quire-test-${randomBytes(16).toString('hex')}`;
const MODEL = 'test-model-7b';
const CATEGORIES = ['invoice', 'letter', 'contract'];
const INVOICE_MD = [
  '# Invoice',
  '',
  'From: Northwind Traders',
  'Invoice number: INV-2024-0042',
  'Invoice date: March 15, 2024',
  'Total amount due: EUR 1,234.50',
  'Paid: yes',
  'Services: Consulting, Travel',
  '',
].join('\n');

let chat: ChatServer;
let server: RunningServer;
let api: ApiClient;
let invoiceId: string;
/** Every job of the test, to look for the key in their GET responses at the end. */
const jobIds: string[] = [];

test.before(async () => {
  chat = await startChatServer();
  server = await startServer({
    env: {
      QUIRE_LLM_BASE_URL: `${chat.url}/v1/`,
      QUIRE_LLM_MODEL: MODEL,
      QUIRE_LLM_API_KEY: API_KEY,
      QUIRE_LLM_TIMEOUT_MS: '1500',
      QUIRE_LLM_ALLOW_PRIVATE_NETWORK: 'true',
    },
  });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  invoiceId = await api.uploadId(Buffer.from(INVOICE_MD), 'invoice.md');
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
  await chat.close();
});

/** Runs a Lens job and returns it with the chat requests it caused. */
async function run(tool: string, body: Record<string, unknown>): Promise<{ job: any; sent: ChatRequest[] }> {
  const before = chat.requests.length;
  const job = await lensJob(api, tool, body);
  jobIds.push(job.id);
  assert.is(job.status, 'COMPLETED', job.error);
  return { job, sent: chat.requests.slice(before) };
}

function userMessage(req: ChatRequest): string {
  return req.body.messages.find((m: { role: string }) => m.role === 'user').content;
}

test('classify asks the endpoint: model, key, temperature 0, a strict schema whose category enum is the categories, the document text', async () => {
  chat.script(() => answerJson({ category: 'invoice', confidence: 0.93, reasoning: 'It says Invoice and has an invoice number and an amount due.' }));
  const { job, sent } = await run('classify', { fileId: invoiceId, categories: CATEGORIES });
  assert.is(sent.length, 1);
  const req = sent[0]!;
  assert.is(req.method, 'POST');
  assert.is(req.path, '/v1/chat/completions');
  assert.is(req.headers.authorization, `Bearer ${API_KEY}`);
  assert.is(req.body.model, MODEL);
  assert.is(req.body.temperature, 0);
  assert.is(req.body.response_format.type, 'json_schema');
  assert.is(req.body.response_format.json_schema.strict, true);
  const schema = req.body.response_format.json_schema.schema;
  assert.equal(schema.properties.category.enum, CATEGORIES);
  assert.equal(schema.required, ['category', 'confidence', 'reasoning']);
  assert.is(schema.additionalProperties, false);
  for (const line of ['From: Northwind Traders', 'Invoice number: INV-2024-0042', 'Total amount due: EUR 1,234.50']) assert.ok(userMessage(req).includes(line), `"${line}" sent`);
  assert.equal(job.result, { category: 'invoice', confidence: 0.93, reasoning: 'It says Invoice and has an invoice number and an amount due.', engine: 'llm', model: MODEL });
  assert.is(job.creditCost ?? 6, 6);
});

test('classify: a category that is not one of the supplied ones → the built-in engine answers, and says why', async () => {
  chat.script(() => answerJson({ category: 'receipt', confidence: 0.8, reasoning: 'Looks like a receipt.' }));
  const { job, sent } = await run('classify', { fileId: invoiceId, categories: CATEGORIES });
  assert.is(sent.length, 1);
  assert.is(job.result.engine, 'builtin');
  assert.match(job.result.fallbackReason, /category "receipt" is not one of the supplied categories/);
  assert.is(job.result.category, 'invoice');
  assert.match(job.result.reasoning, /Deciding words/);
  assert.is(job.result.model, undefined);
});

test('extract: values converted to their types and kept only when the document has them; the rest null and in fieldsMissing', async () => {
  chat.script(() =>
    answerJson({
      vendor: 'northwind  TRADERS',
      invoice_number: 'INV-2024-0042',
      invoice_date: 'March 15, 2024',
      due_date: '2024-05-01',
      total: 1234.5,
      tax: 99.99,
      paid: true,
      services: ['Consulting', 'Travel', 'Catering'],
      purchase_order: 'PO-7781',
      currency: null,
    }),
  );
  const fields = {
    vendor: { type: 'string', description: 'who issued the invoice' },
    invoice_number: { type: 'string' },
    invoice_date: { type: 'date' },
    due_date: { type: 'date' },
    total: { type: 'number', description: 'total amount due' },
    tax: { type: 'number' },
    paid: { type: 'boolean' },
    services: { type: 'array' },
    purchase_order: { type: 'string', description: 'PO reference' },
    currency: { type: 'string' },
  };
  const { job, sent } = await run('extract', { fileId: invoiceId, fields });
  const schema = sent[0]!.body.response_format.json_schema.schema;
  assert.equal(schema.required, Object.keys(fields));
  assert.equal(schema.properties.total.type, ['number', 'null']);
  assert.equal(schema.properties.services.type, ['array', 'null']);
  assert.equal(schema.properties.services.items, { type: 'string' });
  assert.match(schema.properties.purchase_order.description, /PO reference/);
  assert.ok(userMessage(sent[0]!).includes('purchase_order (string): PO reference'));
  assert.equal(job.result.data, {
    vendor: 'northwind  TRADERS',
    invoice_number: 'INV-2024-0042',
    invoice_date: '2024-03-15',
    due_date: null,
    total: 1234.5,
    tax: null,
    paid: true,
    services: ['Consulting', 'Travel'],
    purchase_order: null,
    currency: null,
  });
  assert.equal(job.result.fieldsMissing, ['due_date', 'tax', 'purchase_order', 'currency']);
  assert.is(job.result.engine, 'llm');
  assert.is(job.result.fallbackReason, undefined);
});

test('extract: content that is not JSON → built-in engine, its answer in data, the reason in the result', async () => {
  chat.script(() => ({ content: 'Sure! The total is 1234.50 euros.' }));
  const { job } = await run('extract', { fileId: invoiceId, fields: { total: { type: 'number', description: 'total amount due' }, purchase_order: { type: 'string' } } });
  assert.is(job.result.engine, 'builtin');
  assert.match(job.result.fallbackReason, /not valid JSON/);
  assert.equal(job.result.data, { total: 1234.5, purchase_order: null });
  assert.equal(job.result.fieldsMissing, ['purchase_order']);
});

test('extract: an answer that breaks the schema (a string for a number) → built-in engine', async () => {
  chat.script(() => answerJson({ total: '1,234.50' }));
  const { job } = await run('extract', { fileId: invoiceId, fields: { total: { type: 'number', description: 'total amount due' } } });
  assert.is(job.result.engine, 'builtin');
  assert.match(job.result.fallbackReason, /does not match the schema: answer\.total must be number/);
  assert.equal(job.result.data, { total: 1234.5 });
});

test('extract: HTTP 500 from the endpoint → built-in engine with the status as reason', async () => {
  chat.script(() => ({ status: 500, body: `{"error":{"message":"overloaded; your key ${API_KEY} was fine"}}` }));
  const { job, sent } = await run('extract', { fileId: invoiceId, fields: { invoice_number: { type: 'string' } } });
  assert.is(sent.length, 1);
  assert.is(job.result.engine, 'builtin');
  assert.is(job.result.fallbackReason, 'the endpoint answered HTTP 500');
  assert.equal(job.result.data, { invoice_number: 'INV-2024-0042' });
});

test('classify: an endpoint that never answers → built-in engine after the configured timeout', async () => {
  chat.script(() => ({ hang: true }));
  const { job, sent } = await run('classify', { fileId: invoiceId, categories: CATEGORIES });
  assert.is(sent.length, 1);
  assert.is(job.result.engine, 'builtin');
  assert.is(job.result.fallbackReason, 'the endpoint did not answer within 1500 ms');
  assert.is(job.result.category, 'invoice');
});

test('generate-filename: values from the endpoint, dates normalised, a value not in the document → unknown, then the safe-filename rule', async () => {
  chat.script(() => answerJson({ invoice_date: 'March 15, 2024', vendor: 'Northwind Traders', invoice_number: '../../INV-9999', total: '1.234,50' }));
  const { job, sent } = await run('generate-filename', { fileId: invoiceId, filenameSchema: '{invoice_date}_{vendor}_{invoice_number}_{total}.pdf' });
  assert.equal(Object.keys(sent[0]!.body.response_format.json_schema.schema.properties), ['invoice_date', 'vendor', 'invoice_number', 'total']);
  assert.equal(job.result.placeholders, { invoice_date: '2024-03-15', vendor: 'Northwind-Traders', invoice_number: 'unknown', total: '1234.5' });
  assert.is(job.result.generatedFilename, '2024-03-15_Northwind-Traders_unknown_1234.5.pdf');
  assert.is(job.result.engine, 'llm');
});

test('an empty document is answered by the built-in engine without asking the endpoint', async () => {
  chat.script(() => answerJson({ category: 'letter', confidence: 1, reasoning: 'invented' }));
  const empty = await api.uploadId(Buffer.from('  \n\n'), 'empty.md');
  const { job, sent } = await run('classify', { fileId: empty, categories: CATEGORIES });
  assert.is(sent.length, 0);
  assert.is(job.result.category, 'invoice');
  assert.is(job.result.confidence, 0);
  assert.is(job.result.engine, 'builtin');
  assert.match(job.result.fallbackReason, /no text/);
});

test('the endpoint gets the same pages the built-in engine reads: classify the first 3, extract the `pages` asked for', async () => {
  const doc = { document: { type: 'pdf' }, sections: [1, 2, 3, 4, 5].map((n) => ({ type: 'flow', content: [{ type: 'text', text: `Marker page ${n}: quarterly report of the harbour office.` }] })) };
  const id = await api.uploadId(await renderFile(api, doc), 'five.pdf');
  chat.script(() => answerJson({ category: 'letter', confidence: 0.4, reasoning: 'A short report page.' }));
  const classified = await run('classify', { fileId: id, categories: CATEGORIES });
  const sentText = userMessage(classified.sent[0]!);
  for (const n of [1, 2, 3]) assert.ok(sentText.includes(`Marker page ${n}:`), `page ${n} sent`);
  for (const n of [4, 5]) assert.not.ok(sentText.includes(`Marker page ${n}:`), `page ${n} not sent`);
  assert.is(classified.job.result.engine, 'llm');

  chat.script(() => answerJson({ marker: 'Marker page 5' }));
  const extracted = await run('extract', { fileId: id, pages: ['5'], fields: { marker: { type: 'string' } } });
  const text = userMessage(extracted.sent[0]!);
  assert.ok(text.includes('Marker page 5:'));
  assert.not.ok(/Marker page [1-4]:/.test(text), text);
  assert.match(text, /pages 5/);
  assert.equal(extracted.job.result.data, { marker: 'Marker page 5' });
});

test('a text over 200,000 characters is sent cut at a line break, and the prompt says where', async () => {
  const line = (n: number) => `Line ${String(n).padStart(6, '0')}: the harbour office logged one more crate of tea.`;
  const lines = Array.from({ length: 4000 }, (_, i) => line(i + 1));
  const id = await api.uploadId(Buffer.from(`# Ledger\n\n${lines.join('\n\n')}\n`), 'ledger.md');
  chat.script(() => answerJson({ category: 'letter', confidence: 0.5, reasoning: 'A ledger.' }));
  const { job, sent } = await run('classify', { fileId: id, categories: CATEGORIES });
  const message = userMessage(sent[0]!);
  const inside = message.slice(message.indexOf('<document>\n') + 11, message.lastIndexOf('\n</document>'));
  assert.ok(inside.length <= 200_000, `${inside.length} characters sent`);
  assert.ok(inside.length > 190_000, `${inside.length} characters sent`);
  // Cut at a line break: the last line sent is whole.
  assert.match(inside.split('\n').at(-1)!, /^Line \d{6}: the harbour office logged one more crate of tea\.$/);
  assert.not.ok(inside.includes(line(4000)));
  assert.match(message, new RegExp(`cut after ${inside.length.toLocaleString('en-US')} of [\\d,]+ characters`));
  assert.is(job.result.engine, 'llm');
});

test('the key is never in job results, GET responses or the log; the log says which engine answered and why', async () => {
  assert.ok(jobIds.length >= 10);
  for (const id of jobIds) {
    const r = await api.get(`/api/v1/dev/tools/jobs/${id}`);
    assert.is(r.status, 200);
    assert.not.ok(r.bytes.toString().includes(API_KEY), `job ${id}`);
  }
  for (const path of ['/api/v1/dev/plugins', '/readyz', '/api/v1/dev/openapi.json']) {
    const r = await api.get(path);
    assert.not.ok(r.bytes.toString().includes(API_KEY), path);
  }
  const logs = server.logs();
  assert.not.ok(logs.includes(API_KEY), 'key in the log');
  assert.not.ok(logs.includes(API_KEY.slice(-12)), 'part of the key in the log');
  const lines = logs.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const boot = lines.find((l) => l.msg.startsWith('LLM endpoint configured'));
  assert.equal([boot?.endpoint, boot?.model, boot?.apiKey], [chat.url, MODEL, 'set']);
  const answered = lines.filter((l) => l.msg === 'lens: the LLM endpoint answered');
  const fellBack = lines.filter((l) => l.msg === 'lens: LLM endpoint not used, built-in engine answered');
  assert.ok(answered.length >= 4, `${answered.length} answered lines`);
  assert.ok(fellBack.some((l) => l.level === 40 && l.jobId && l.worker.reason === 'the endpoint answered HTTP 500'), 'the HTTP 500 fallback is logged with its job');
  assert.ok(answered.some((l) => l.worker.notInDocument === 'due_date, tax, services, purchase_order'), 'fields the model named without evidence are logged');
});

test('without the private-address opt-in a loopback endpoint is refused: nothing reaches it and the built-in engine answers', async () => {
  const canary = await startCanary();
  const dataDir = server.dataDir;
  await server.stop();
  // The file keys this time (QUIRE_CONFIG), and no QUIRE_LLM_ALLOW_PRIVATE_NETWORK.
  server = await startServer({ dataDir, config: { llmBaseUrl: `${canary.url}/v1`, llmModel: MODEL, llmApiKey: API_KEY } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  try {
    const job = await lensJob(api, 'classify', { fileId: invoiceId, categories: CATEGORIES });
    assert.is(job.status, 'COMPLETED', job.error);
    assert.is(job.result.engine, 'builtin');
    assert.match(job.result.fallbackReason, /outbound URL policy refused the endpoint .*QUIRE_LLM_ALLOW_PRIVATE_NETWORK=true/);
    assert.not.match(job.result.fallbackReason, /127\.0\.0\.1/);
    assert.is(job.result.category, 'invoice');
    const extracted = await lensJob(api, 'extract', { fileId: invoiceId, fields: { total: { type: 'number', description: 'total amount due' } } });
    assert.equal([extracted.result.engine, extracted.result.data.total], ['builtin', 1234.5]);
    assert.equal(canary.hits, []);
    const logs = server.logs();
    assert.match(logs, /LLM endpoint configured, but the outbound URL policy refuses it/);
    assert.match(logs, /a loopback address/);
    assert.not.ok(logs.includes(API_KEY));
  } finally {
    await canary.close();
  }
});

test('a base URL without a model, or a key without a base URL, stops the server naming the setting', async () => {
  const noModel = await startExpectingFailure({ env: { QUIRE_LLM_BASE_URL: 'https://llm.example.com/v1' } });
  assert.is(noModel.code, 78);
  assert.match(noModel.output, /QUIRE_LLM_BASE_URL is set but QUIRE_LLM_MODEL is not/);
  const stray = await startExpectingFailure({ env: { QUIRE_LLM_API_KEY: API_KEY } });
  assert.is(stray.code, 78);
  assert.match(stray.output, /QUIRE_LLM_API_KEY is set but QUIRE_LLM_BASE_URL is not/);
  assert.not.ok(stray.output.includes(API_KEY));
});

test.run();
