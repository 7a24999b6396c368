// Round trip: document JSON → Extended Markdown → document JSON gives the same document after normalisation, and Markdown re-serialises stably.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeDocument, parseMarkdown, serializeMarkdown } from '../../../document/markdown/index.js';
import * as arb from './arbitraries.js';
import { check } from './check.js';

test('parse(serialize(doc)) equals doc after normalisation, for generated documents', () => {
  check(
    arb.document,
    (doc) => {
      const md = serializeMarkdown(doc);
      const result = parseMarkdown(md);
      if (!result.document) throw new Error(`errors: ${JSON.stringify(result.errors)}\n${md}`);
      assert.equal(normalizeDocument(result.document), normalizeDocument(doc), md);
    },
    60,
  );
});

test.run();
