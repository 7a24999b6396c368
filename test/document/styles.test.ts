// The style preset contract: preset-then-inline precedence (mergeDefaults), definition validation, and the built-in catalog.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileSchema } from '../../contracts/schema.js';
import type { Defaults } from '../../contracts/document-json.js';
import { StylePresetSchema } from '../../contracts/styles.js';
import { mergeDefaults, validateStyleDefinition, validateCreateStylePreset, validatePatchStylePreset } from '../../document/styles.js';
import { SYSTEM_STYLE_SLUGS, systemStylePreset, systemStylePresets } from '../../contracts/system-styles.js';

const preset: Defaults = {
  fonts: { family: 'Noto Serif', size: 11, color: '#222222' },
  headings: { h1: { size: 24, weight: 'bold', color: '#6D1A25' }, h2: { size: 16 } },
  colors: { primary: '#6D1A25', muted: '#777777' },
  table: { headerBackground: '#F4EFE6', stripe: false },
  footer: { text: '{{page}}', align: 'center' },
  citationStyle: 'chicago-author-date',
  locale: 'en-GB',
};

test('mergeDefaults lets inline fields win while keeping the preset fields they do not name', () => {
  const merged = mergeDefaults(preset, { fonts: { size: 12 }, headings: { h1: { color: '#000000' }, h3: { size: 12 } }, colors: { primary: '#123456' }, locale: 'de-CH' });
  assert.equal(merged, {
    fonts: { family: 'Noto Serif', size: 12, color: '#222222' },
    headings: { h1: { size: 24, weight: 'bold', color: '#000000' }, h2: { size: 16 }, h3: { size: 12 } },
    colors: { primary: '#123456', muted: '#777777' },
    table: { headerBackground: '#F4EFE6', stripe: false },
    footer: { text: '{{page}}', align: 'center' },
    citationStyle: 'chicago-author-date',
    locale: 'de-CH',
  });
});

test('mergeDefaults merges header and footer field by field and adds sub-objects the preset lacks', () => {
  const merged = mergeDefaults(preset, { footer: { text: 'Page {{page}} of {{pages}}' }, header: { text: 'Draft', align: 'right' }, paragraph: { lineHeight: 1.5 } });
  assert.equal(merged.footer, { text: 'Page {{page}} of {{pages}}', align: 'center' });
  assert.equal(merged.header, { text: 'Draft', align: 'right' });
  assert.equal(merged.paragraph, { lineHeight: 1.5 });
});

test('mergeDefaults handles missing sides and changes neither input', () => {
  const before = structuredClone(preset);
  const override: Defaults = { fonts: { size: 9 } };
  assert.equal(mergeDefaults(undefined, override), override);
  assert.equal(mergeDefaults(preset, undefined), preset);
  assert.equal(mergeDefaults(undefined, undefined), {});
  const merged = mergeDefaults(preset, override);
  merged.fonts!.family = 'changed';
  merged.headings!.h1!.size = 99;
  assert.equal(preset, before);
  assert.equal(override, { fonts: { size: 9 } });
});

test('mergeDefaults skips undefined override fields and never touches the prototype', () => {
  const merged = mergeDefaults(preset, { fonts: { family: undefined, size: 10 } } as Defaults);
  assert.is(merged.fonts?.family, 'Noto Serif');
  const hostile = JSON.parse('{"__proto__": {"polluted": true}, "colors": {"__proto__": {"polluted": true}}}') as Defaults;
  const out = mergeDefaults(preset, hostile) as Record<string, unknown>;
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is(out.polluted, undefined);
  assert.is((out.colors as Record<string, unknown>).polluted, undefined);
});

test('validateStyleDefinition reports contract errors with paths under definition and the document codes', () => {
  assert.equal(validateStyleDefinition(preset), []);
  assert.equal(validateStyleDefinition({}), []);
  const errors = validateStyleDefinition({ fonts: { size: 3 }, table: { stripe: 'yes' }, locale: 'not a locale!' });
  const paths = errors.map((e) => e.path).sort();
  assert.equal(paths, ['definition.fonts.size', 'definition.locale', 'definition.table.stripe']);
  assert.is(errors.find((e) => e.path === 'definition.fonts.size')!.code, 'LIMIT_EXCEEDED');
  assert.match(errors.find((e) => e.path === 'definition.locale')!.message, 'BCP 47');
  assert.equal(validateStyleDefinition([], 'x.y'), [{ path: 'x.y', message: 'must be an object', code: 'INVALID_FIELD' }]);
});

test('create and patch bodies report field and definition errors together', () => {
  const r = validateCreateStylePreset({ name: '', tags: 'serif', definition: { colors: { primary: 'red' } } });
  assert.ok(!r.ok);
  if (!r.ok) assert.equal(r.errors.map((e) => e.path).sort(), ['definition.colors.primary', 'name', 'tags']);
  assert.ok(validateCreateStylePreset({ name: 'Ok', definition: {} }).ok);
  assert.ok(validatePatchStylePreset({ description: null }).ok);
  assert.not.ok(validatePatchStylePreset({}).ok);
});

test('the built-in catalog has at least six valid, distinct presets with system: ids', () => {
  const presets = systemStylePresets();
  assert.ok(presets.length >= 6);
  const checkPreset = compileSchema(StylePresetSchema);
  for (const slug of ['modern-report', 'classic-serif', 'academic-paper', 'corporate-letter', 'minimal-memo', 'invoice']) assert.ok(SYSTEM_STYLE_SLUGS.includes(slug), slug);
  for (const p of presets) {
    assert.ok(checkPreset(p), `${p.id}: ${JSON.stringify(checkPreset.errors)}`);
    assert.equal(validateStyleDefinition(p.definition), [], p.id);
    assert.match(p.id, /^system:[a-z-]+$/);
    assert.is(p.editable, false);
    for (const part of ['fonts', 'headings', 'paragraph', 'colors', 'table', 'citationStyle', 'locale'] as const) assert.ok(p.definition[part] !== undefined, `${p.id} lacks ${part}`);
    assert.ok(p.definition.header || p.definition.footer, `${p.id} has neither header nor footer`);
  }
  const looks = new Set(presets.map((p) => `${p.definition.fonts!.family}|${p.definition.colors!.primary}|${p.definition.table!.headerBackground}`));
  assert.is(looks.size, presets.length);
  assert.is(systemStylePreset('system:classic-serif')!.definition.fonts!.family, 'Noto Serif');
  assert.is(systemStylePreset('system:academic-paper')!.definition.citationStyle, 'apa');
  assert.is(systemStylePreset('system:nope'), undefined);
  assert.is(systemStylePreset('classic-serif'), undefined);
});

test('system presets are handed out as copies: changing one changes nothing else', () => {
  const a = systemStylePreset('system:invoice')!;
  a.definition.fonts!.size = 50;
  a.tags.push('mine');
  const b = systemStylePreset('system:invoice')!;
  assert.is.not(b.definition.fonts!.size, 50);
  assert.not.ok(b.tags.includes('mine'));
});

test.run();
