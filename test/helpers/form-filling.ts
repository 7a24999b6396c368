// A person filling the every-kind form (test/helpers/public-form.ts) in Chromium: the keys they press and the buttons
// they click, with JavaScript (rows added in place) or without (each button a form post that shows the page again).
import type { Page } from 'puppeteer-core';

/** Ids of the every-kind form's inputs, by position (server/forms-page/page.ts names them so). */
export const IDS = { name: '#f-0', notes: '#f-1', due: '#f-2', amount: '#f-3', large: '#f-4-2', express: '#f-5', logo: '#f-6', tasks: '#f-7', addRow: '#f-8-add' } as const;
export const cell = (row: number, col: number) => `#f-8-r${row}-c${col}`;

/** Replaces what an input or textarea holds by typing, as a person selecting all and typing over it. */
export async function typeOver(page: Page, selector: string, text: string): Promise<void> {
  await page.focus(selector);
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.type(selector, text);
}

/** Clicks a button; without JavaScript it posts the form, and the page comes back. */
async function press(page: Page, selector: string, javaScript: boolean): Promise<void> {
  if (javaScript) await page.click(selector);
  else await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

export interface Filled {
  name: string;
  amount: string;
}

/**
 * Fills every field: texts, a date typed in the date input, a radio, the checkbox, a list, the table's first row
 * changed, a row added and filled, another added and removed; the image is chosen last (a page shown again without
 * JavaScript does not keep files).
 */
export async function fillEveryKind(page: Page, javaScript: boolean, imageFile: string, values: Filled): Promise<void> {
  await typeOver(page, IDS.name, values.name);
  await typeOver(page, IDS.notes, 'Deliver to the back door\nRing twice');
  await page.focus(IDS.due);
  await page.type(IDS.due, '05012026');
  await typeOver(page, IDS.amount, values.amount);
  await page.click(IDS.large);
  await page.click(IDS.express);
  await typeOver(page, IDS.tasks, 'Plan\nShip');
  await typeOver(page, cell(0, 0), 'Desk');
  await typeOver(page, cell(0, 1), '3');
  await press(page, IDS.addRow, javaScript);
  await typeOver(page, cell(1, 0), 'Lamp');
  await typeOver(page, cell(1, 1), '1');
  await press(page, IDS.addRow, javaScript);
  await page.waitForSelector(cell(2, 0));
  await press(page, 'button[value="remove-row:lines:2"]', javaScript);
  await chooseImage(page, imageFile);
}

export async function chooseImage(page: Page, imageFile: string): Promise<void> {
  const input = await page.$(IDS.logo);
  await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(imageFile);
}
