// axe-core in a test page: the WCAG 2.1 A and AA violations of the page as it is now.
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'puppeteer-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * axe-core's violations of WCAG 2.1 A and AA on the page as it is now (injected through DevTools: the CSP allows no
 * inline script). `checked`: rules that must have passed somewhere, proof axe saw what the test means (a page without
 * text fields has no `label` pass; one with only selects has `select-name`).
 */
export async function axeViolations(page: Page, checked = ['color-contrast', 'label']): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG)} } })`)) as { violations: Array<{ id: string; nodes: Array<{ target: string[] }> }>; passes: Array<{ id: string }> };
  const missing = checked.filter((rule) => !result.passes.some((p) => p.id === rule));
  assert.equal(missing, [], `axe checked ${checked.join(', ')}`);
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
