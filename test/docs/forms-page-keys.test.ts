// The public form page's text keys are documented: every key a form's `labels` may replace appears in the docs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/quire-server.js';
import { PAGE_STRING_KEYS } from '../../server/forms-page/strings.js';
import { VALUE_MESSAGES } from '../../services/forms/form-value-messages.js';

// The public page's part of docs/forms.md lists every key.
const docs = readFileSync(path.join(ROOT, 'docs/forms.md'), 'utf8');

test('every page text key and every validation message key is named in the forms documentation', () => {
  const keys = [...PAGE_STRING_KEYS, ...Object.keys(VALUE_MESSAGES.en)];
  const missing = keys.filter((k) => !docs.includes(`\`${k}\``));
  assert.equal(missing, []);
});

test('the four locales give every validation message the same placeholders as English', () => {
  for (const [locale, messages] of Object.entries(VALUE_MESSAGES)) {
    for (const [key, text] of Object.entries(messages)) {
      const en = VALUE_MESSAGES.en[key as keyof typeof VALUE_MESSAGES.en];
      assert.equal(text.match(/\{\w+\}/g)?.sort(), en.match(/\{\w+\}/g)?.sort(), `${locale} ${key}`);
    }
  }
});

test.run();
