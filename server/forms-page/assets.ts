// The public form page's stylesheet and script, kept as string modules so the compiled server (dist/) finds them
// without the source tree; served under /f/assets/ with a name carrying their hash, so they can be cached for good.
import { createHash } from 'node:crypto';

const CSS = `
:root { color-scheme: light; --text: #1a1a1a; --muted: #4a4f57; --line: #767676; --accent: #1d4ed8; --accent-dark: #1e3a8a; --error: #b3261e; --bg: #ffffff; --panel: #f4f5f7; --focus: #ffbf47; }
*, *::before, *::after { box-sizing: border-box; }
html { font-size: 100%; -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
.page { max-width: 72rem; margin: 0 auto; padding: 1rem; }
.layout { display: grid; gap: 2rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 64rem) { .layout { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); align-items: start; } .preview-col { position: sticky; top: 1rem; } }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 0.5rem 0 0.75rem; }
h2 { font-size: 1.25rem; margin: 0 0 0.5rem; }
p { margin: 0 0 1rem; }
a { color: var(--accent); }
a:hover { color: var(--accent-dark); }
.description { color: var(--muted); }
.field { margin: 0 0 1.5rem; }
.field > label, legend { display: block; font-weight: 600; margin-bottom: 0.25rem; padding: 0; }
.req { font-weight: 400; color: var(--muted); }
.help { color: var(--muted); margin: 0 0 0.375rem; font-size: 0.9375rem; }
.error { color: var(--error); font-weight: 600; margin: 0 0 0.375rem; }
input[type=text], input[type=date], textarea, select { display: block; width: 100%; max-width: 36rem; font: inherit; color: var(--text); background: #fff; border: 2px solid var(--line); border-radius: 4px; padding: 0.5rem 0.625rem; min-height: 2.75rem; }
textarea { min-height: 6rem; resize: vertical; }
input[type=file] { font: inherit; max-width: 100%; }
.has-error input[type=text], .has-error input[type=date], .has-error textarea, .has-error select, input[aria-invalid=true] { border-color: var(--error); border-width: 3px; }
.has-error { border-left: 4px solid var(--error); padding-left: 0.75rem; }
fieldset { border: 0; margin: 0 0 1.5rem; padding: 0; min-width: 0; }
.choice { display: flex; align-items: center; gap: 0.5rem; margin: 0.25rem 0; min-height: 2.75rem; }
.choice input { width: 1.5rem; height: 1.5rem; margin: 0; accent-color: var(--accent); }
.choice label { font-weight: 400; }
.check > .choice label { font-weight: 600; }
.rows { display: grid; gap: 0.75rem; margin-bottom: 0.75rem; }
.row { background: var(--panel); border: 1px solid #c4c7cc; border-radius: 6px; padding: 0.75rem; display: grid; gap: 0.5rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 40rem) { .row { grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); align-items: end; } }
.row-title { grid-column: 1 / -1; font-weight: 600; margin: 0; }
.cell label { display: block; font-size: 0.9375rem; margin-bottom: 0.125rem; }
.cell .error { font-size: 0.9375rem; }
button { font: inherit; font-weight: 600; border-radius: 4px; padding: 0.5rem 1rem; min-height: 2.75rem; cursor: pointer; }
button.primary { background: var(--accent); color: #fff; border: 2px solid var(--accent); }
button.primary:hover { background: var(--accent-dark); border-color: var(--accent-dark); }
button.secondary { background: #fff; color: var(--accent-dark); border: 2px solid var(--accent-dark); }
button.secondary:hover { background: #e8edfb; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1rem; }
:focus-visible { outline: 3px solid var(--text); outline-offset: 2px; box-shadow: 0 0 0 6px var(--focus); }
input:focus-visible, textarea:focus-visible, select:focus-visible { outline: 3px solid var(--text); outline-offset: 0; box-shadow: 0 0 0 6px var(--focus); }
.error-summary { border: 4px solid var(--error); padding: 1rem; margin: 0 0 1.5rem; }
.error-summary:focus { outline: 3px solid var(--text); outline-offset: 2px; box-shadow: 0 0 0 6px var(--focus); }
.error-summary ul { margin: 0; padding-left: 1.25rem; }
.error-summary a { color: var(--error); font-weight: 600; }
.preview-col { background: var(--panel); border-radius: 6px; padding: 1rem; }
.preview-frame { background: #fff; border: 1px solid #c4c7cc; min-height: 4rem; }
.preview-frame img { display: block; width: 100%; height: auto; }
.preview-frame img[hidden] { display: none; }
.visually-hidden, .default-submit { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0; }
.hp { position: absolute; left: -10000px; top: auto; width: 1px; height: 1px; overflow: hidden; }
.notice { background: var(--panel); border-left: 4px solid var(--accent); padding: 0.75rem 1rem; }
.download { display: inline-block; background: var(--accent); color: #fff; font-weight: 600; text-decoration: none; border-radius: 4px; padding: 0.625rem 1.25rem; }
.download:hover { background: var(--accent-dark); color: #fff; }
`;

/** Progressive enhancement only: every action also works as a plain form post (docs/forms.md). */
const JS = `
(function () {
  'use strict';
  var summary = document.getElementById('error-summary');
  if (summary) summary.focus();

  var status = document.querySelector('[data-status-url]');
  if (status) {
    var poll = function () {
      fetch(status.getAttribute('data-status-url'), { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) { if (s && s.state !== 'pending') location.reload(); else setTimeout(poll, 1500); })
        .catch(function () { setTimeout(poll, 3000); });
    };
    setTimeout(poll, 1000);
  }

  var form = document.querySelector('form[data-preview-url]');
  if (!form) return;

  function renumber(fieldset) {
    var rows = fieldset.querySelectorAll('[data-row]');
    for (var i = 0; i < rows.length; i++) {
      var title = rows[i].querySelector('.row-title');
      if (title) title.textContent = title.getAttribute('data-template').replace('{row}', String(i + 1));
      var remove = rows[i].querySelector('[data-remove-row]');
      if (remove) remove.setAttribute('aria-label', remove.getAttribute('data-template').replace('{row}', String(i + 1)));
    }
  }

  form.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('button[name=_action]') : null;
    if (!button) return;
    var action = button.value || '';
    if (action.indexOf('add-row:') === 0) {
      event.preventDefault();
      var fieldset = button.closest('fieldset');
      var template = fieldset.querySelector('template');
      var index = Number(fieldset.getAttribute('data-next-index'));
      fieldset.setAttribute('data-next-index', String(index + 1));
      var holder = document.createElement('div');
      holder.innerHTML = template.innerHTML.split('__INDEX__').join(String(index));
      var row = holder.firstElementChild;
      fieldset.querySelector('.rows').appendChild(row);
      renumber(fieldset);
      var first = row.querySelector('input');
      if (first) first.focus();
      schedulePreview();
    } else if (action.indexOf('remove-row:') === 0) {
      event.preventDefault();
      var set = button.closest('fieldset');
      var gone = button.closest('[data-row]');
      var next = gone.nextElementSibling || gone.previousElementSibling;
      gone.parentNode.removeChild(gone);
      renumber(set);
      var target = next ? next.querySelector('input') : set.querySelector('[data-add-row]');
      if (target) target.focus();
      schedulePreview();
    }
  });

  var image = document.getElementById('preview-image');
  var failed = document.getElementById('preview-failed');
  var timer = null;
  var current = null;
  var sequence = 0;
  function schedulePreview() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(refreshPreview, 400);
  }
  function refreshPreview() {
    var data = new FormData(form);
    var body = new URLSearchParams();
    data.forEach(function (value, name) { if (typeof value === 'string') body.append(name, value); });
    var mine = ++sequence;
    fetch(form.getAttribute('data-preview-url'), { method: 'POST', body: body, credentials: 'same-origin' })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.blob(); })
      .then(function (blob) {
        if (mine !== sequence) return;
        var url = URL.createObjectURL(blob);
        image.onload = function () { if (current) URL.revokeObjectURL(current); current = url; };
        image.src = url;
        image.hidden = false;
        image.setAttribute('data-preview-count', String(mine));
        if (failed) failed.hidden = true;
      })
      .catch(function () { if (mine === sequence && failed) failed.hidden = false; });
  }
  form.addEventListener('input', schedulePreview);
  form.addEventListener('change', schedulePreview);
  var previewButton = form.querySelector('button[value=preview]');
  if (previewButton) previewButton.hidden = true;
  refreshPreview();
})();
`;

function named(body: string, base: string, ext: string, type: string) {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${base}-${hash}.${ext}`, type, body: Buffer.from(body, 'utf8') };
}

/** The two assets by their served name (`form-<hash>.css`, `form-<hash>.js`). */
export const FORM_STYLE = named(CSS, 'form', 'css', 'text/css; charset=utf-8');
export const FORM_SCRIPT = named(JS, 'form', 'js', 'text/javascript; charset=utf-8');
export const FORM_ASSETS = new Map([FORM_STYLE, FORM_SCRIPT].map((a) => [a.name, a]));
