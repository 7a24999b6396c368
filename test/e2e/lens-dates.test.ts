// Lens extract reads a receipt's own date through the damage OCR does to it, over HTTP: a year split in two, a
// two-digit year run into the time, spaces beside a separator, digit look-alikes, and a day/month order that an
// amount beside a ratio does not sway. Receipts are made with Quire (POST /render), one printed line per element.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { lensJob, renderFile } from '../helpers/lens-fixtures.js';

type Json = any;
let server: RunningServer;
let api: ApiClient;

test.before(async () => {
  server = await startServer();
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

const DATE = { date: { type: 'date', description: 'receipt date' } };

/** A till receipt with the given lines between a shop's head and its total, extracted for its date. */
async function dateOf(name: string, lines: string[]): Promise<Json> {
  const content = ['KEDAI RUNCIT MAJU SDN BHD', 'NO. 8, JALAN BUNGA RAYA 3', '43000 KAJANG, SELANGOR', ...lines, 'SHAMPOO 200ML 1 X 12.90 12.90', 'TOTAL RM 12.90'];
  const config = { document: { type: 'pdf', size: 'A5' }, sections: [{ type: 'flow', content: content.map((text) => ({ type: 'text', text })) }] };
  const id = await api.uploadId(await renderFile(api, config), `${name}.pdf`);
  const job = await lensJob(api, 'extract', { fileId: id, fields: DATE });
  assert.is(job.status, 'COMPLETED', job.error);
  return job.result;
}

test('a four-digit year that OCR split in two ("Date: 29/10/20 17", "Date: 18/09/2 017") is read as 2017, not 2020 or none', async () => {
  const r = await dateOf('split-year', ['Cash Inv No.: 7029F711', 'Date: 29/10/20 17']);
  assert.is(r.data.date, '2017-10-29');
  assert.match(r.evidence.date.text, /29\/10\/20 17/);
  assert.match(r.evidence.date.rule, /date after a date label/);
  assert.is((await dateOf('split-year-2', ['Date: 18/09/2 017'])).data.date, '2017-09-18');
});

test('a two-digit year run into the time ("01/05/1612:30") is a 2016 date beside a time', async () => {
  const r = await dateOf('glued-time', ['Slip 0020018018', '01/05/1612:30 Staff: 20980']);
  assert.is(r.data.date, '2016-05-01');
  assert.match(r.evidence.date.rule, /date beside a time/);
});

test('spaces OCR put beside a separator ("25-01 -16 11:59") still make a date when a time follows it', async () => {
  const r = await dateOf('spaced-separator', ['Item(s) : 2 Qty(s) : 2', '25-01 -16 11:59 SH01 ZJ08 T3']);
  assert.is(r.data.date, '2016-01-25');
  assert.match(r.evidence.date.text, /25-01 -16 11:59/);
});

test('figures with spaced dashes and neither a date label nor a time ("SIZE 12 - 05 - 16") are no date', async () => {
  const r = await dateOf('spaced-no-date', ['HOSE CLIP SIZE 12 - 05 - 16']);
  assert.is(r.data.date, null);
  assert.equal(r.fieldsMissing, ['date']);
});

test('digit look-alikes inside a slashed date ("Date: O1/O5/2Ol6") are read as digits', async () => {
  const r = await dateOf('look-alikes', ['Date: O1/O5/2Ol6']);
  assert.is(r.data.date, '2016-05-01');
});

test('an amount beside a ratio ("10.56/10.55") does not make 06/12/2016 month first: it is 6 December', async () => {
  const r = await dateOf('ratio', ['MTD SVGV: 10.56/10.55', 'INV NO/DATE: K074-001096 (06/12/2016)']);
  assert.is(r.data.date, '2016-12-06');
  assert.match(r.evidence.date.rule, /day first/);
});

test.run();
