// Store conformance: style presets, documents (paging, versions, shared assets) and templates.
import * as assert from 'uvu/assert';
import type { DocumentRecord } from '../../kernel/model.js';
import { area, asset, at, document, org, preset, template, type OpenStore } from './store-conformance-records.js';

export function defineWorkspaceConformance(suiteName: string, open: OpenStore): void {
  area(suiteName, 'style presets', open, (it) => {
    it('a preset reads back for its organization only and is listed oldest first', async (store) => {
      const [a, b] = [org(), org()];
      const later = preset(a.id, { createdAt: at(2), updatedAt: at(2) });
      const earlier = preset(a.id, { createdAt: at(1), updatedAt: at(1), description: 'd', category: 'c' });
      const other = preset(b.id);
      for (const p of [later, earlier, other]) await store.createStylePreset(p);
      assert.equal(await store.getStylePreset(a.id, earlier.id), earlier);
      assert.is(await store.getStylePreset(b.id, earlier.id), undefined);
      assert.is(await store.getStylePreset(a.id, 'no-such-preset'), undefined);
      assert.equal(await store.listStylePresets(a.id), [earlier, later]);
      assert.equal(await store.listStylePresets(b.id), [other]);
    });

    it('a new default preset takes the flag from the organization\'s other default, whose version stays', async (store) => {
      const [a, b] = [org(), org()];
      const first = preset(a.id, { isDefault: true });
      const otherOrg = preset(b.id, { isDefault: true });
      await store.createStylePreset(first);
      await store.createStylePreset(otherOrg);
      const second = preset(a.id, { isDefault: true, createdAt: at(1), updatedAt: at(1) });
      await store.createStylePreset(second);
      const firstNow = await store.getStylePreset(a.id, first.id);
      assert.is(firstNow?.isDefault, false);
      assert.is(firstNow?.version, 1);
      assert.is((await store.getStylePreset(a.id, second.id))?.isDefault, true);
      assert.is((await store.getStylePreset(b.id, otherOrg.id))?.isDefault, true, 'another organization\'s default stays');
      assert.is((await store.listStylePresets(a.id)).filter((p) => p.isDefault).length, 1);
    });

    it('an update applies the patch, adds 1 to the version, sets updatedAt, and may move the default', async (store) => {
      const o = org();
      const old = preset(o.id, { isDefault: true });
      const p = preset(o.id);
      await store.createStylePreset(old);
      await store.createStylePreset(p);
      const updated = await store.updateStylePreset(o.id, p.id, { name: 'Renamed', tags: ['sans'], isDefault: true, definition: { colors: { primary: 'blue' } } }, at(5));
      const expected = { ...p, name: 'Renamed', tags: ['sans'], isDefault: true, definition: { colors: { primary: 'blue' } }, version: 2, updatedAt: at(5) };
      assert.equal(updated, expected);
      assert.equal(await store.getStylePreset(o.id, p.id), expected);
      const oldNow = await store.getStylePreset(o.id, old.id);
      assert.is(oldNow?.isDefault, false);
      assert.is(oldNow?.version, 1);
      assert.is((await store.updateStylePreset(o.id, p.id, { description: 'now described' }, at(6)))?.version, 3);
      assert.is((await store.updateStylePreset(o.id, p.id, { isDefault: false }, at(7)))?.isDefault, false);
      assert.is((await store.listStylePresets(o.id)).filter((x) => x.isDefault).length, 0, 'unsetting the default leaves none');
    });

    it('an update of an unknown or another organization\'s preset is undefined and changes nothing', async (store) => {
      const [a, b] = [org(), org()];
      const p = preset(a.id);
      await store.createStylePreset(p);
      assert.is(await store.updateStylePreset(b.id, p.id, { name: 'Stolen' }, at(1)), undefined);
      assert.is(await store.updateStylePreset(a.id, 'no-such-preset', { name: 'X' }, at(1)), undefined);
      assert.equal(await store.getStylePreset(a.id, p.id), p);
    });

    it('a preset is deleted by its own organization only', async (store) => {
      const [a, b] = [org(), org()];
      const p = preset(a.id);
      await store.createStylePreset(p);
      assert.is(await store.deleteStylePreset(b.id, p.id), false);
      assert.equal(await store.getStylePreset(a.id, p.id), p);
      assert.is(await store.deleteStylePreset(a.id, p.id), true);
      assert.is(await store.getStylePreset(a.id, p.id), undefined);
      assert.is(await store.deleteStylePreset(a.id, p.id), false);
      assert.equal(await store.listStylePresets(a.id), []);
    });
  });

  area(suiteName, 'documents', open, (it) => {
    it('a document is created with its new assets and reads back for its organization only', async (store) => {
      const [a, b] = [org(), org()];
      const img = asset(a.id);
      const d = document(a.id, { assetIds: [img.id], fromMarkdown: true, stylePresetId: 'preset-1' });
      await store.createDocument(d, [img]);
      assert.equal(await store.getDocument(a.id, d.id), d);
      assert.is(await store.getDocument(b.id, d.id), undefined);
      assert.is(await store.getDocument(a.id, 'no-such-document'), undefined);
      assert.equal(await store.getAsset(a.id, img.id), img);
      assert.equal(await store.findAssetBySource(a.id, img.sourceImageId!), img);
    });

    it('lists newest first (ties by id, descending) in pages that continue after a cursor, and counts per organization', async (store) => {
      const [a, b] = [org(), org()];
      const docs = [1, 2, 2, 2, 3, 4].map((m) => document(a.id, { createdAt: at(m), updatedAt: at(m) }));
      for (const d of docs) await store.createDocument(d, []);
      await store.createDocument(document(b.id), []);
      const expected = [...docs].sort((x, y) => y.createdAt.localeCompare(x.createdAt) || y.id.localeCompare(x.id));
      const seen: DocumentRecord[] = [];
      let page = await store.listDocuments(a.id, 4);
      assert.is(page.length, 4);
      // Bounded, so a cursor that does not move on fails the test instead of looping.
      for (let pages = 0; page.length && pages < docs.length; pages++) {
        seen.push(...page);
        const last = page[page.length - 1]!;
        page = await store.listDocuments(a.id, 4, { createdAt: last.createdAt, id: last.id });
      }
      assert.equal(seen, expected);
      assert.equal((await store.listDocuments(a.id, 2, { createdAt: expected[1]!.createdAt, id: expected[1]!.id })).map((d) => d.id), [expected[2]!.id, expected[3]!.id]);
      assert.is(await store.countDocuments(a.id), 6);
      assert.is(await store.countDocuments(b.id), 1);
      assert.is(await store.countDocuments('no-such-org'), 0);
      assert.equal(await store.listDocuments('no-such-org', 10), []);
    });

    it('an update replaces the changed fields, adds 1 to the version and sets updatedAt', async (store) => {
      const o = org();
      const d = document(o.id);
      await store.createDocument(d, []);
      const outcome = await store.updateDocument(o.id, d.id, { name: 'Renamed', config: { doc: { title: 'New' } } }, [], at(3));
      const expected = { ...d, name: 'Renamed', config: { doc: { title: 'New' } }, version: 2, updatedAt: at(3) };
      assert.equal(outcome, { document: expected, releasedAssets: [] });
      assert.equal(await store.getDocument(o.id, d.id), expected);
    });

    it('an update with a stale expectedVersion is a conflict and writes nothing; the current one succeeds', async (store) => {
      const o = org();
      const d = document(o.id);
      await store.createDocument(d, []);
      await store.updateDocument(o.id, d.id, { name: 'Second' }, [], at(1));
      const img = asset(o.id);
      assert.is(await store.updateDocument(o.id, d.id, { name: 'Stale', assetIds: [img.id] }, [img], at(2), 1), 'conflict');
      assert.equal(await store.getDocument(o.id, d.id), { ...d, name: 'Second', version: 2, updatedAt: at(1) });
      assert.is(await store.getAsset(o.id, img.id), undefined, 'the new assets of a refused change are not written');
      const outcome = await store.updateDocument(o.id, d.id, { name: 'Third' }, [], at(3), 2);
      assert.ok(typeof outcome === 'object');
      assert.is(outcome.document.version, 3);
    });

    it('an update or delete of an unknown or another organization\'s document is undefined', async (store) => {
      const [a, b] = [org(), org()];
      const d = document(a.id);
      await store.createDocument(d, []);
      assert.is(await store.updateDocument(b.id, d.id, { name: 'X' }, [], at(1)), undefined);
      assert.is(await store.updateDocument(a.id, 'no-such-document', { name: 'X' }, [], at(1)), undefined);
      assert.is(await store.deleteDocument(b.id, d.id), undefined);
      assert.equal(await store.getDocument(a.id, d.id), d);
    });

    it('an asset two documents use is released only when neither uses it any more', async (store) => {
      const o = org();
      const [shared, own, added] = [asset(o.id), asset(o.id), asset(o.id)];
      const first = document(o.id, { assetIds: [shared.id, own.id] });
      const second = document(o.id, { assetIds: [shared.id] });
      await store.createDocument(first, [shared, own]);
      await store.createDocument(second, []);
      const outcome = await store.updateDocument(o.id, first.id, { assetIds: [added.id] }, [added], at(1));
      assert.ok(typeof outcome === 'object');
      assert.equal(outcome.releasedAssets, [own.id]);
      assert.equal(outcome.document.assetIds, [added.id]);
      assert.is(await store.getAsset(o.id, own.id), undefined);
      assert.is(await store.findAssetBySource(o.id, own.sourceImageId!), undefined, 'a released asset is no longer found by its source');
      assert.equal(await store.getAsset(o.id, shared.id), shared);
      assert.equal(await store.getAsset(o.id, added.id), added);
      assert.equal(await store.deleteDocument(o.id, second.id), { releasedAssets: [shared.id] });
      assert.is(await store.getAsset(o.id, shared.id), undefined);
      assert.equal(await store.deleteDocument(o.id, first.id), { releasedAssets: [added.id] });
      assert.is(await store.getAsset(o.id, added.id), undefined);
      assert.is(await store.getDocument(o.id, first.id), undefined);
      assert.is(await store.deleteDocument(o.id, first.id), undefined);
      assert.is(await store.countDocuments(o.id), 0);
    });

    it('an update whose change leaves assetIds out releases nothing', async (store) => {
      const o = org();
      const img = asset(o.id);
      const d = document(o.id, { assetIds: [img.id] });
      await store.createDocument(d, [img]);
      const outcome = await store.updateDocument(o.id, d.id, { name: 'Renamed' }, [], at(1));
      assert.ok(typeof outcome === 'object');
      assert.equal(outcome.releasedAssets, []);
      assert.equal(outcome.document.assetIds, [img.id]);
      assert.equal(await store.getAsset(o.id, img.id), img);
    });
  });

  area(suiteName, 'templates', open, (it) => {
    it('a template is created with its new assets, reads back for its organization only, and is listed oldest first', async (store) => {
      const [a, b] = [org(), org()];
      const img = asset(a.id);
      const later = template(a.id, { createdAt: at(2), updatedAt: at(2), assetIds: [img.id] });
      const earlier = template(a.id, { createdAt: at(1), updatedAt: at(1), markdown: null, warning: 'no Markdown' });
      await store.createTemplate(later, [img]);
      await store.createTemplate(earlier, []);
      await store.createTemplate(template(b.id), []);
      assert.equal(await store.getTemplate(a.id, later.id), later);
      assert.is(await store.getTemplate(b.id, later.id), undefined);
      assert.equal(await store.getAsset(a.id, img.id), img);
      assert.equal(await store.listTemplates(a.id), [earlier, later]);
      assert.equal(await store.listTemplates('no-such-org'), []);
    });

    it('an update adds 1 to the version, refuses a stale expectedVersion, and is undefined for another organization', async (store) => {
      const [a, b] = [org(), org()];
      const t = template(a.id);
      await store.createTemplate(t, []);
      const outcome = await store.updateTemplate(a.id, t.id, { name: 'Renamed', productive: false }, [], at(1), 1);
      const expected = { ...t, name: 'Renamed', productive: false, version: 2, updatedAt: at(1) };
      assert.equal(outcome, { template: expected, releasedAssets: [] });
      assert.is(await store.updateTemplate(a.id, t.id, { name: 'Stale' }, [], at(2), 1), 'conflict');
      assert.is(await store.updateTemplate(b.id, t.id, { name: 'X' }, [], at(2)), undefined);
      assert.is(await store.deleteTemplate(b.id, t.id), undefined);
      assert.equal(await store.getTemplate(a.id, t.id), expected);
    });

    it('an asset a template and a document share is released with the last of them', async (store) => {
      const o = org();
      const [shared, own] = [asset(o.id), asset(o.id)];
      const t = template(o.id, { assetIds: [shared.id, own.id] });
      const d = document(o.id, { assetIds: [shared.id] });
      await store.createTemplate(t, [shared, own]);
      await store.createDocument(d, []);
      const outcome = await store.updateTemplate(o.id, t.id, { assetIds: [shared.id] }, [], at(1));
      assert.ok(typeof outcome === 'object');
      assert.equal(outcome.releasedAssets, [own.id]);
      assert.equal(await store.deleteTemplate(o.id, t.id), { releasedAssets: [] });
      assert.equal(await store.getAsset(o.id, shared.id), shared);
      assert.equal(await store.deleteDocument(o.id, d.id), { releasedAssets: [shared.id] });
      assert.is(await store.getTemplate(o.id, t.id), undefined);
      assert.is(await store.deleteTemplate(o.id, t.id), undefined);
    });
  });
}
