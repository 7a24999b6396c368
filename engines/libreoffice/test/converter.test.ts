// The warm LibreOffice service on its own: conversions in every direction, restart after N, a hung and a crashed soffice, no remote content.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LibreOfficeConverter, OfficeConversionError } from '../index.js';
import { canary, docxReport, handDocx, linkedPictureDocx, odtReport, p, pdfText, r } from '../../../plugins/docx-templates/test/fixtures.js';

// Generous deadlines: the machine is shared, and soffice is slow under load.
const converter = new LibreOfficeConverter({ restartAfter: 3, timeoutMs: 120_000, startTimeoutMs: 180_000 });
let letter: Uint8Array;

test.before(async () => {
  letter = await handDocx({ body: p(r('Converted letter')) + p(r('Second line', true)) });
});

test.after(async () => {
  await converter.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('converts DOCX to PDF, DOCX to ODT and ODT back to DOCX, read by poppler, odfpy and python-docx', async () => {
  const pdf = await converter.convert(letter, 'docx', 'pdf');
  assert.ok((await pdfText(pdf)).includes('Converted letter Second line'));
  const odt = await converter.convert(letter, 'docx', 'odt');
  assert.ok((await odtReport(odt)).paragraphs.includes('Converted letter'));
  const docx = await converter.convert(odt, 'odt', 'docx');
  assert.ok((await docxReport(docx)).paragraphs.includes('Second line'));
  // The third conversion used up the budget of 3: that soffice was replaced.
  assert.is(converter.stats.restarts, 1);
  assert.is(converter.stats.conversions, 3);
});

test('a document LibreOffice cannot open fails with OFFICE_CONVERSION_FAILED and the service keeps working', async () => {
  try {
    await converter.convert(new TextEncoder().encode('not a document at all'), 'docx', 'pdf');
    assert.unreachable('should have failed');
  } catch (err) {
    assert.instance(err, OfficeConversionError);
    assert.is((err as OfficeConversionError).code, 'OFFICE_CONVERSION_FAILED');
  }
  assert.ok((await pdfText(await converter.convert(letter, 'docx', 'pdf'))).includes('Converted letter'));
});

test('a hung soffice (stopped with SIGSTOP) hits the deadline, is killed, and the next conversion runs on a fresh one', async () => {
  await converter.warmUp();
  const pid = converter.pid!;
  const before = converter.stats;
  process.kill(-pid, 'SIGSTOP');
  try {
    await converter.convert(letter, 'docx', 'pdf', { timeoutMs: 3_000 });
    assert.unreachable('should have timed out');
  } catch (err) {
    assert.is((err as OfficeConversionError).code, 'OFFICE_CONVERSION_TIMEOUT');
  }
  assert.not.ok(alive(pid), 'the hung soffice was killed');
  assert.ok((await pdfText(await converter.convert(letter, 'docx', 'pdf'))).includes('Converted letter'));
  assert.is(converter.stats.timeouts, before.timeouts + 1);
  assert.is(converter.stats.starts, before.starts + 1);
});

test('a crashed soffice (killed) is replaced on the next conversion', async () => {
  await converter.warmUp();
  const pid = converter.pid!;
  process.kill(-pid, 'SIGKILL');
  const pdf = await converter.convert(letter, 'docx', 'pdf');
  assert.ok((await pdfText(pdf)).includes('Converted letter'));
  assert.ok(converter.stats.crashes >= 1);
  assert.is.not(converter.pid, pid);
});

test('LibreOffice never fetches a linked picture: the loopback canary receives nothing', async () => {
  const spy = await canary();
  try {
    const pdf = await converter.convert(await linkedPictureDocx(`${spy.url}/logo.png`), 'docx', 'pdf');
    assert.ok((await pdfText(pdf)).includes('Linked picture for'));
    const odt = await converter.convert(await linkedPictureDocx(`${spy.url}/logo.png`), 'docx', 'odt');
    assert.ok(odt.byteLength > 0);
    assert.equal(spy.hits, []);
  } finally {
    await spy.close();
  }
});

test('close() stops soffice and later conversions fail with OFFICE_UNAVAILABLE', async () => {
  await converter.warmUp();
  const pid = converter.pid!;
  await converter.close();
  assert.not.ok(alive(pid));
  try {
    await converter.convert(letter, 'docx', 'pdf');
    assert.unreachable('closed');
  } catch (err) {
    assert.is((err as OfficeConversionError).code, 'OFFICE_UNAVAILABLE');
  }
});

test.run();
