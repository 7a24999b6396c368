// Store conformance for interactive forms and their records (issue 22), run against the embedded store and PostgreSQL.
import * as assert from 'uvu/assert';
import type { FilloutRecord, FormRecord } from '../../kernel/model.js';
import { startPostgres } from '../helpers/postgres.js';
import { area, asset, at, document, id, twoOrgs, type OpenStore } from './store-conformance-records.js';
import { lowdbStores, pgStores } from './store-openers.js';

const form = (orgId: string, documentId: string, over: Partial<FormRecord> = {}): FormRecord => ({
  id: id(), orgId, documentId, title: 'Order', description: null,
  fields: [{
    name: 'customer', kind: 'text', label: 'Customer', help: null, placeholder: null, required: true, min: null, max: null, minLength: null, maxLength: 80,
    pattern: null, patternMessage: null, choices: null, columns: null, minItems: null, maxItems: null, trueText: null, falseText: null, defaultValue: 'Ada',
  }],
  autoRender: false, format: 'PDF', locale: 'en', labels: {}, submissionsPerMinute: 30, recordIp: false, tokenNonce: id(), expiresAt: null, revokedAt: null,
  version: 1, createdAt: at(0), updatedAt: at(0), ...over,
});

const fillout = (f: FormRecord, over: Partial<FilloutRecord> = {}): FilloutRecord => ({
  id: id(), orgId: f.orgId, formId: f.id, documentId: f.documentId, values: { customer: 'Grace', count: 3, items: ['a', 'b'], rows: [{ q: 1, name: 'x' }] },
  assetIds: [], submitter: { userAgent: 'test', locale: 'en', ip: null }, jobId: null, renderError: null, createdAt: at(1), ...over,
});

/** The image value of a record that uses `assetId`. */
const image = (assetId: string) => ({ assetId, mimeType: 'image/png', sizeBytes: 10, filename: 'photo.png' });

const key = (r: { createdAt: string; id: string }) => ({ createdAt: r.createdAt, id: r.id });

function defineFormConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'forms', open, (it) => {
    it('a form reads back for its organization only, and by its id alone for the public page', async (store) => {
      const [a, b] = await twoOrgs(store);
      const f = form(a.id, id());
      await store.createForm(f);
      assert.equal(await store.getForm(a.id, f.id), f);
      assert.is(await store.getForm(b.id, f.id), undefined);
      assert.equal(await store.getFormById(f.id), f);
      assert.is(await store.getFormById(id()), undefined);
      assert.is(await store.getFormById('constructor'), undefined, 'an id is never a property of the collection');
    });

    it('forms are listed newest first, of one document when asked, in pages after a cursor', async (store) => {
      const [a, b] = await twoOrgs(store);
      const [docA, docB] = [id(), id()];
      const first = form(a.id, docA, { createdAt: at(1) });
      const tieLow = form(a.id, docA, { id: `a-${id()}`, createdAt: at(2) });
      const tieHigh = form(a.id, docA, { id: `b-${id()}`, createdAt: at(2) });
      const other = form(a.id, docB, { createdAt: at(3) });
      for (const f of [tieLow, first, other, tieHigh, form(b.id, docA)]) await store.createForm(f);
      assert.equal(await store.listForms(a.id, {}, 10), [other, tieHigh, tieLow, first]);
      const page = await store.listForms(a.id, { documentId: docA }, 2);
      assert.equal(page, [tieHigh, tieLow], 'ties on createdAt go by id, descending');
      assert.equal(await store.listForms(a.id, { documentId: docA }, 2, key(page[1]!)), [first]);
      assert.equal(await store.listForms(a.id, { documentId: docA }, 2, key(first)), []);
      assert.equal(await store.listForms(b.id, { documentId: docB }, 10), []);
    });

    it('a form changes by version: the change sees the stored form, a stale version is a conflict, another organization gets nothing', async (store) => {
      const [a, b] = await twoOrgs(store);
      const f = form(a.id, id());
      await store.createForm(f);
      const changed = await store.updateForm(a.id, f.id, (current) => ({ title: `${current.title} v${current.version}`, revokedAt: at(5) }), at(5), 1);
      const expected = { ...f, title: 'Order v1', revokedAt: at(5), version: 2, updatedAt: at(5) };
      assert.equal(changed, expected);
      assert.is(await store.updateForm(a.id, f.id, () => ({ title: 'Stale' }), at(6), 1), 'conflict');
      assert.is(await store.updateForm(b.id, f.id, () => ({ title: 'Theirs' }), at(6)), undefined);
      assert.is(await store.updateForm(a.id, id(), () => ({ title: 'None' }), at(6)), undefined);
      assert.equal(await store.getForm(a.id, f.id), expected);
      const unversioned = await store.updateForm(a.id, f.id, () => ({ tokenNonce: 'n2', revokedAt: null }), at(7));
      assert.equal(unversioned, { ...expected, tokenNonce: 'n2', revokedAt: null, version: 3, updatedAt: at(7) });
    });

    it("deleting a form deletes its records and the images only they used in one write; an image a document or another form's record uses stays", async (store, opened) => {
      const [a, b] = await twoOrgs(store);
      const [own, sharedInForm, withDocument, withOtherForm] = [asset(a.id), asset(a.id), asset(a.id), asset(a.id)];
      const doc = document(a.id, { assetIds: [withDocument.id] });
      await store.createDocument(doc, [withDocument]);
      const f = form(a.id, doc.id);
      const g = form(a.id, doc.id);
      for (const x of [f, g]) await store.createForm(x);
      const r1 = fillout(f, { assetIds: [own.id, sharedInForm.id, withDocument.id], values: { photo: image(own.id) } });
      const r2 = fillout(f, { assetIds: [sharedInForm.id, withOtherForm.id] });
      const r3 = fillout(g, { assetIds: [withOtherForm.id] });
      await store.createFillout(r1, [own, sharedInForm]);
      await store.createFillout(r2, [withOtherForm]);
      await store.createFillout(r3, []);
      assert.is(await store.deleteForm(b.id, f.id), undefined, "another organization's form is not deleted");
      const outcome = await store.deleteForm(a.id, f.id);
      assert.ok(outcome);
      assert.equal([...outcome.releasedAssets].sort(), [own.id, sharedInForm.id].sort());
      const after = opened.reopen ? await opened.reopen() : store;
      assert.is(await after.getForm(a.id, f.id), undefined);
      assert.is(await after.getFormById(f.id), undefined);
      assert.is(await after.getFillout(a.id, r1.id), undefined);
      assert.is(await after.getFillout(a.id, r2.id), undefined);
      assert.equal(await after.getFillout(a.id, r3.id), r3);
      assert.equal(await after.getForm(a.id, g.id), g);
      assert.is(await after.getAsset(a.id, own.id), undefined);
      assert.is(await after.getAsset(a.id, sharedInForm.id), undefined);
      assert.equal(await after.getAsset(a.id, withDocument.id), withDocument);
      assert.equal(await after.getAsset(a.id, withOtherForm.id), withOtherForm);
      assert.is(await after.deleteForm(a.id, f.id), undefined, 'a deleted form is unknown');
      assert.equal(await after.deleteDocument(a.id, doc.id), { releasedAssets: [withDocument.id] }, 'the document was the last user of its image');
      assert.equal(await after.deleteForm(a.id, g.id), { releasedAssets: [withOtherForm.id] });
    });

    it('a record is created with its images, reads back for its organization only, and changes only its render', async (store) => {
      const [a, b] = await twoOrgs(store);
      const f = form(a.id, id());
      await store.createForm(f);
      const photo = asset(a.id, { sourceImageId: null });
      const r = fillout(f, { assetIds: [photo.id], values: { customer: 'Grace', photo: image(photo.id) } });
      await store.createFillout(r, [photo]);
      assert.equal(await store.getFillout(a.id, r.id), r);
      assert.is(await store.getFillout(b.id, r.id), undefined);
      assert.is(await store.getFillout(a.id, 'constructor'), undefined);
      assert.equal(await store.getAsset(a.id, photo.id), photo);
      const started = await store.updateFillout(a.id, r.id, { jobId: 'job-1' });
      assert.equal(started, { ...r, jobId: 'job-1' });
      const refused = { code: 'INSUFFICIENT_CREDITS', message: 'Out of credits.' };
      assert.equal(await store.updateFillout(a.id, r.id, { renderError: refused }), { ...r, jobId: 'job-1', renderError: refused });
      assert.is(await store.updateFillout(b.id, r.id, { jobId: 'job-2' }), undefined);
      assert.is(await store.updateFillout(a.id, id(), { jobId: 'job-2' }), undefined);
      assert.equal(await store.getFillout(a.id, r.id), { ...r, jobId: 'job-1', renderError: refused });
    });

    it('records are listed newest first, of one form or one document when asked, in pages after a cursor', async (store) => {
      const [a, b] = await twoOrgs(store);
      const [docA, docB] = [id(), id()];
      const f = form(a.id, docA);
      const g = form(a.id, docA);
      const h = form(a.id, docB);
      for (const x of [f, g, h]) await store.createForm(x);
      const f1 = fillout(f, { createdAt: at(1) });
      const f2 = fillout(f, { id: `a-${id()}`, createdAt: at(2) });
      const f3 = fillout(f, { id: `b-${id()}`, createdAt: at(2) });
      const g1 = fillout(g, { createdAt: at(3) });
      const h1 = fillout(h, { createdAt: at(4) });
      for (const r of [f2, g1, f1, h1, f3]) await store.createFillout(r, []);
      const theirs = fillout(form(b.id, docA));
      await store.createFillout(theirs, []);
      assert.equal(await store.listFillouts(a.id, {}, 10), [h1, g1, f3, f2, f1]);
      const page = await store.listFillouts(a.id, { formId: f.id }, 2);
      assert.equal(page, [f3, f2], 'ties on createdAt go by id, descending');
      assert.equal(await store.listFillouts(a.id, { formId: f.id }, 2, key(page[1]!)), [f1]);
      assert.equal(await store.listFillouts(a.id, { documentId: docA }, 10), [g1, f3, f2, f1]);
      assert.equal(await store.listFillouts(a.id, { documentId: docA }, 1, key(g1)), [f3]);
      assert.equal(await store.listFillouts(a.id, { formId: f.id, documentId: docB }, 10), []);
      assert.equal(await store.listFillouts(b.id, { documentId: docA }, 10), [theirs]);
    });

    it('deleting a record releases the images only it used; an image a document also uses goes with the last of them', async (store, opened) => {
      const [a, b] = await twoOrgs(store);
      const [own, shared, withDocument] = [asset(a.id), asset(a.id), asset(a.id)];
      const doc = document(a.id, { assetIds: [withDocument.id] });
      await store.createDocument(doc, [withDocument]);
      const f = form(a.id, doc.id);
      await store.createForm(f);
      const first = fillout(f, { assetIds: [own.id, shared.id, withDocument.id] });
      const second = fillout(f, { assetIds: [shared.id] });
      await store.createFillout(first, [own, shared]);
      await store.createFillout(second, []);
      const current = opened.reopen ? await opened.reopen() : store;
      assert.is(await current.deleteFillout(b.id, first.id), undefined);
      assert.equal(await current.deleteFillout(a.id, first.id), { releasedAssets: [own.id] });
      assert.is(await current.getFillout(a.id, first.id), undefined);
      assert.is(await current.getAsset(a.id, own.id), undefined);
      assert.equal(await current.getAsset(a.id, shared.id), shared);
      assert.equal(await current.getAsset(a.id, withDocument.id), withDocument);
      assert.equal(await current.deleteFillout(a.id, second.id), { releasedAssets: [shared.id] });
      assert.is(await current.getAsset(a.id, shared.id), undefined);
      assert.is(await current.deleteFillout(a.id, second.id), undefined, 'a deleted record is unknown');
      assert.equal(await current.getForm(a.id, f.id), f, 'the form stays');
    });

    it("a record's image a document also uses outlives the document, and its forms and records stay when the document goes", async (store) => {
      const [a] = await twoOrgs(store);
      const img = asset(a.id);
      const doc = document(a.id, { assetIds: [img.id] });
      await store.createDocument(doc, [img]);
      const f = form(a.id, doc.id);
      await store.createForm(f);
      const r = fillout(f, { assetIds: [img.id] });
      await store.createFillout(r, []);
      assert.equal(await store.deleteDocument(a.id, doc.id), { releasedAssets: [] });
      assert.equal(await store.getAsset(a.id, img.id), img);
      assert.equal(await store.getForm(a.id, f.id), f);
      assert.equal(await store.listFillouts(a.id, { documentId: doc.id }, 10), [r]);
      assert.equal(await store.deleteFillout(a.id, r.id), { releasedAssets: [img.id] });
      assert.is(await store.getAsset(a.id, img.id), undefined);
    });

    it('form updates made at once with the same expectedVersion: exactly one succeeds', async (store) => {
      const [a] = await twoOrgs(store);
      const f = form(a.id, id());
      await store.createForm(f);
      const outcomes = await Promise.all([0, 1, 2, 3].map((i) => store.updateForm(a.id, f.id, () => ({ title: `Title ${i}` }), at(i), 1)));
      assert.is(outcomes.filter((x) => typeof x === 'object').length, 1);
      assert.is(outcomes.filter((x) => x === 'conflict').length, 3);
      assert.is((await store.getForm(a.id, f.id))?.version, 2);
    });

    it('a form, a record of another form and a document sharing an image, all deleted at once, release it exactly once', async (store) => {
      const [a] = await twoOrgs(store);
      const shared = asset(a.id);
      const doc = document(a.id, { assetIds: [shared.id] });
      await store.createDocument(doc, [shared]);
      const [f, g] = [form(a.id, doc.id), form(a.id, doc.id)];
      for (const x of [f, g]) await store.createForm(x);
      const [ofF, ofG] = [fillout(f, { assetIds: [shared.id] }), fillout(g, { assetIds: [shared.id] })];
      for (const r of [ofF, ofG]) await store.createFillout(r, []);
      const outcomes = await Promise.all([store.deleteForm(a.id, f.id), store.deleteFillout(a.id, ofG.id), store.deleteDocument(a.id, doc.id)]);
      assert.equal(outcomes.flatMap((o) => o!.releasedAssets), [shared.id]);
      assert.is(await store.getAsset(a.id, shared.id), undefined);
    });
  });
}

// Started before any suite is registered (uvu runs the registered suites at the first pause); the harness reaps it
// when the process exits, after the last suite.
const cluster = await startPostgres();

defineFormConformance('LowdbStore', lowdbStores('quire-store-forms-'));
defineFormConformance('PgStore', pgStores(cluster, 'forms_'));
