// The sample documents a new render thread renders in its warm-up: valid document JSON, rendered through the
// render-pdf pool like any job (a warm-up that failed would only be caught silently, so it is checked here).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDocument } from '../../document/validator.js';
import type { PluginDefinition } from '../../sdk/plugin-api.js';
import { PluginPool } from '../../kernel/plugin-pool.js';
import { WARM_UP_RENDERS, warmUpDocument } from '../../engines/typst/compile.js';
import { pdftotextLayout } from '../helpers/poppler.js';

test('every warm-up document is valid document JSON and renders to the PDF it describes', async () => {
  const { default: def } = (await import('../../plugins/render-pdf/manifest.js')) as { default: PluginDefinition };
  const pool = PluginPool.forPlugin(def, def.manifest.pool);
  try {
    for (let n = 0; n < WARM_UP_RENDERS; n++) {
      const checked = validateDocument(warmUpDocument(n));
      assert.ok(checked.valid, JSON.stringify(checked.errors));
      const out = (await pool.run('renderPdf', { params: { document: checked.document, pdfProfile: 'standard', createdAt: '2026-01-01T00:00:00Z' }, files: [], settings: {} })) as { file: { bytes: Uint8Array } };
      const text = await pdftotextLayout(out.file.bytes);
      assert.match(text, `Statement ${1000 + n}`);
      assert.match(text, 'Northwind Traders');
      assert.match(text, 'Page 1 of 1');
      assert.match(text, 'Payment within 30 days');
    }
  } finally {
    await pool.close();
  }
});

test.run();
