// Markdown → JSON → Markdown is stable: the second serialisation equals the first, for generated Extended Markdown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeDocument, parseMarkdown, serializeMarkdown } from '../../../document/markdown/index.js';
import * as arb from './arbitraries.js';
import { check } from './check.js';

test('serialize(parse(md)) is stable on a second pass and keeps the document', () => {
  check(
    arb.markdownSource,
    (md) => {
      const first = parseMarkdown(md);
      if (!first.document) return;
      const once = serializeMarkdown(first.document);
      const second = parseMarkdown(once);
      if (!second.document) throw new Error(`the serialised Markdown does not parse: ${JSON.stringify(second.errors)}\n--- source\n${md}\n--- serialised\n${once}`);
      assert.equal(normalizeDocument(second.document), normalizeDocument(first.document), `--- source\n${md}\n--- serialised\n${once}`);
      assert.is(serializeMarkdown(second.document), once, `--- source\n${md}`);
    },
    150,
  );
});

test.run();
