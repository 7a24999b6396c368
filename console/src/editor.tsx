// The Extended Markdown editor: line numbers, the checks at their line and column, a live page-1 preview (free: POST
// /render/markdown/preview), a variables panel, block insertion at the caret, "save" back to an opened document or as a new one.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { blobUrl, call, previewImage, problemText } from './api.js';
import { insertAtCursor, type Draft } from './draft.js';
import { requestVariables, variablesOf, type Variable } from './variables.js';

/** Quiet time after the last keystroke before the preview is drawn again. */
const DEBOUNCE_MS = 250;

interface Issue {
  path?: string;
  message: string;
  code?: string;
  line?: number;
  column?: number;
}

function where(i: Issue): string {
  return i.line === undefined ? '' : `${i.line}:${i.column ?? 1} `;
}

function IssueList({ id, issues, kind }: { id: string; issues: Issue[]; kind: 'error' | 'warning' }) {
  if (!issues.length) return null;
  return (
    <ul id={id} class={`issues ${kind}`} aria-live="polite">
      {issues.map((i) => (
        <li>
          <code class="at">{where(i)}</code>
          {i.message}
          {i.code && <span class="code"> ({i.code})</span>}
        </li>
      ))}
    </ul>
  );
}

/** The style preset picker: the built-in catalog and the organization's own (GET /styles?source=all); '' is none. */
function StylePicker({ apiKey, value, onChange }: { apiKey: string; value: string; onChange: (id: string) => void }) {
  const [styles, setStyles] = useState<Array<{ id: string; name: string; source: string }>>([]);
  useEffect(() => void call(apiKey, 'GET', '/styles?source=all').then((a) => a.status === 200 && setStyles(a.body.items)), [apiKey]);
  return (
    <label class="style-picker">
      Style{' '}
      <select id="style" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">None</option>
        {['system', 'workspace'].map((source) => {
          const some = styles.filter((st) => st.source === source);
          return (
            some.length > 0 && (
              <optgroup label={source === 'system' ? 'Built in' : 'Your workspace'}>
                {some.map((st) => (
                  <option value={st.id}>{st.name}</option>
                ))}
              </optgroup>
            )
          );
        })}
      </select>
    </label>
  );
}

/** The organization's active reusable blocks (only those render); picking one inserts its reference (`::block{id=…}`) at the caret. */
function BlockPicker({ apiKey, onPick }: { apiKey: string; onPick: (id: string) => void }) {
  const [blocks, setBlocks] = useState<Array<{ id: string; name: string }>>([]);
  useEffect(() => void call(apiKey, 'GET', '/reusable-blocks?status=ACTIVE&limit=200').then((a) => a.status === 200 && setBlocks(a.body.items)), [apiKey]);
  if (!blocks.length) return null;
  return (
    <label class="style-picker">
      Insert block{' '}
      <select id="insert-block" value="" onChange={(e) => (e.currentTarget.value && onPick(e.currentTarget.value), (e.currentTarget.value = ''))}>
        <option value="">Choose…</option>
        {blocks.map((b) => (
          <option value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** One input per variable: empty keeps the front matter's value (its placeholder); a value typed goes with preview and render. */
function VariablesPanel({ vars, values, onChange }: { vars: Variable[]; values: Record<string, string>; onChange: (name: string, value: string) => void }) {
  return (
    <details id="variables" class="variables" open>
      <summary>Variables ({vars.length})</summary>
      {vars.length === 0 ? (
        <p class="note">No variables: declare them under <code>variables:</code> in the front matter or use <code>{'{{name}}'}</code> in the text.</p>
      ) : (
        <div class="variable-grid">
          {vars.map((v) => (
            <label data-variable={v.name}>
              <code>{v.name}</code>
              <input
                type="text"
                value={values[v.name] ?? ''}
                disabled={v.structured}
                placeholder={v.structured ? 'a table, list or image: set in the front matter' : (v.declared ?? 'not declared')}
                onInput={(e) => onChange(v.name, e.currentTarget.value)}
              />
            </label>
          ))}
        </div>
      )}
    </details>
  );
}

export function Editor({ apiKey, draft, setDraft, onSpent }: { apiKey: string; draft: Draft; setDraft: (update: (d: Draft) => Draft) => void; onSpent: () => void }) {
  const { content, style } = draft;
  const [errors, setErrors] = useState<Issue[]>([]);
  const [warnings, setWarnings] = useState<Issue[]>([]);
  const [preview, setPreview] = useState<{ url: string; serial: number } | null>(null);
  const [status, setStatus] = useState('');
  const [pdf, setPdf] = useState('');
  const [saved, setSaved] = useState<{ id?: string; version?: number; error?: string } | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [retry, setRetry] = useState(0);
  const gutter = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  // The request under way: a newer edit cancels it, so a slow answer for older text never replaces a newer image.
  const inFlight = useRef<AbortController | null>(null);

  const vars = useMemo(() => variablesOf(content), [content]);
  const variables = requestVariables(vars, values);
  const varsKey = JSON.stringify(variables ?? {});

  /** The request of the preview, validate and render routes alike: the text, the preset when one is picked, the variables typed. */
  const request = (withVariables = true) => ({ content, ...(style ? { stylePresetId: style } : {}), ...(withVariables && variables ? { variables } : {}) });

  useEffect(() => {
    inFlight.current?.abort();
    const body = request();
    const timer = setTimeout(() => {
      const controller = new AbortController();
      inFlight.current = controller;
      void refresh(controller.signal, body).catch((err: Error) => !controller.signal.aborted && setStatus(`The preview failed: ${err.message}`));
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [content, style, varsKey, retry]);

  useEffect(() => () => preview && URL.revokeObjectURL(preview.url), [preview]);
  useEffect(() => () => inFlight.current?.abort(), []);

  async function refresh(signal: AbortSignal, body: ReturnType<typeof request>): Promise<void> {
    setStatus('Drawing…');
    const started = performance.now();
    // The checks (warnings too) and the page image at once; both free.
    const [checked, shown] = await Promise.all([call(apiKey, 'POST', '/render/validate/markdown', body, { signal }), previewImage(apiKey, body, signal)]);
    if (signal.aborted) return void ('url' in shown && URL.revokeObjectURL(shown.url));
    if (checked.status === 200) {
      setErrors(checked.body.errors);
      setWarnings(checked.body.warnings);
    }
    if ('url' in shown) {
      setPreview((p) => ({ url: shown.url, serial: (p?.serial ?? 0) + 1 }));
      return setStatus(`Page 1 drawn in ${Math.round(performance.now() - started)} ms (free preview)`);
    }
    const { problem, retryAfter } = shown;
    if (problem.status === 429 && retryAfter !== null) {
      // The key's previews of the minute are spent: the last image stays, and the newest text is drawn when allowed.
      setTimeout(() => setRetry((n) => n + 1), retryAfter * 1000);
      return setStatus(`Preview limit reached; the preview updates in ${retryAfter} s.`);
    }
    if (checked.status === 200 && !checked.body.valid) return setStatus('Fix the errors to update the preview.');
    if (problem.status === 400 && Array.isArray(problem.body?.errors)) setErrors(problem.body.errors);
    setStatus(problemText(problem));
  }

  /** Renders the whole document to PDF (a billed render job; one round trip with ?wait=) and hands the file to the browser. */
  async function downloadPdf(): Promise<void> {
    setPdf('Rendering the PDF…');
    let job = await call(apiKey, 'POST', '/render/markdown?wait=30', request());
    if (job.status === 202) job = await call(apiKey, 'GET', `/render/${job.body.jobId}?waitMs=30000`);
    if (job.status >= 300) return setPdf(problemText(job));
    onSpent();
    if (job.body.status !== 'COMPLETED') return setPdf(`The render ${job.body.status.toLowerCase()}: ${job.body.error?.message ?? job.body.error ?? ''}`);
    const url = await blobUrl(apiKey, `/render/${job.body.jobId}/download`);
    const a = document.createElement('a');
    a.href = url;
    a.download = job.body.filename ?? 'document.pdf';
    a.click();
    // The browser has taken the file once the click's task ran; the blob is not needed after.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setPdf(`Downloaded ${a.download} (${job.body.pageCount} page${job.body.pageCount === 1 ? '' : 's'})`);
  }

  /** A new document from the text (the panel's values are not saved: the front matter keeps the document's variables). */
  async function saveAsNew(): Promise<void> {
    setSaved(null);
    const r = await call(apiKey, 'POST', '/documents/markdown', request(false));
    if (r.status !== 201) return failedSave(r);
    setSaved({ id: r.body.id, version: r.body.version });
    setDraft((d) => ({ ...d, doc: { id: r.body.id, name: r.body.name, version: r.body.version, stylePresetId: r.body.stylePresetId }, origin: null }));
  }

  /** The text back into the opened document (If-Match: the version read), and its style preset when the picker changed it. */
  async function saveBack(): Promise<void> {
    const doc = draft.doc!;
    setSaved(null);
    let r = await call(apiKey, 'PATCH', `/documents/${doc.id}/markdown`, { markdown: content }, { headers: { 'If-Match': String(doc.version) } });
    if (r.status === 200 && (style || null) !== doc.stylePresetId) {
      r = await call(apiKey, 'PATCH', `/documents/${doc.id}`, { stylePresetId: style || null }, { headers: { 'If-Match': String(r.body.version) } });
    }
    if (r.status !== 200) return failedSave(r);
    setSaved({ id: doc.id, version: r.body.version });
    setDraft((d) => ({ ...d, doc: { ...doc, version: r.body.version, stylePresetId: r.body.stylePresetId } }));
  }

  function failedSave(r: { status: number; body: any }): void {
    if (Array.isArray(r.body?.errors)) setErrors(r.body.errors);
    setSaved({ error: r.status === 412 ? `${problemText(r)} Open the document again from the Library to see the newer version.` : problemText(r) });
  }

  const trackCursor = () => area.current && setDraft((d) => ({ ...d, cursor: area.current!.selectionStart }));
  const lines = content.split('\n').length;
  const badLines = new Set(errors.map((e) => e.line));
  return (
    <div class="editor-page">
      <section class="source" aria-label="Extended Markdown">
        <p id="editing" class="editing">
          {draft.doc ? (
            <>
              Editing document <strong>{draft.doc.name}</strong> <span class="note">(version {draft.doc.version})</span>
            </>
          ) : (
            <>New document{draft.origin ? ` from ${draft.origin}` : ''}, not saved yet</>
          )}
        </p>
        <div class="toolbar">
          <StylePicker apiKey={apiKey} value={style} onChange={(id) => setDraft((d) => ({ ...d, style: id }))} />
          <BlockPicker apiKey={apiKey} onPick={(id) => setDraft((d) => insertAtCursor(d, `::block{id=${id}}`))} />
        </div>
        <div class="toolbar">
          <button id="download-pdf" type="button" onClick={() => void downloadPdf().catch((err: Error) => setPdf(`The download failed: ${err.message}`))}>
            Download PDF
          </button>
          {draft.doc && (
            <button id="save-back" type="button" onClick={() => void saveBack()}>
              Save
            </button>
          )}
          <button id="save" type="button" onClick={() => void saveAsNew()}>
            Save as {draft.doc ? 'new ' : ''}document
          </button>
          {saved?.id && (
            <span class="saved">
              Saved as document <code id="saved-id">{saved.id}</code>, version <span id="saved-version">{saved.version}</span>
            </span>
          )}
          {saved?.error && (
            <span id="save-error" class="error" role="alert">
              {saved.error}
            </span>
          )}
        </div>
        {pdf && (
          <p id="pdf-status" class="status" aria-live="polite">
            {pdf}
          </p>
        )}
        <div class="code-area">
          <div class="gutter" ref={gutter} aria-hidden="true">
            {Array.from({ length: lines }, (_, n) => (
              <div class={badLines.has(n + 1) ? 'bad' : undefined}>{n + 1}</div>
            ))}
          </div>
          <textarea
            id="markdown"
            ref={area}
            aria-label="Extended Markdown source"
            spellcheck={false}
            value={content}
            onInput={(e) => setDraft((d) => ({ ...d, content: e.currentTarget.value, cursor: e.currentTarget.selectionStart }))}
            onKeyUp={trackCursor}
            onClick={trackCursor}
            onScroll={(e) => gutter.current && (gutter.current.scrollTop = e.currentTarget.scrollTop)}
          />
        </div>
        <IssueList id="errors" issues={errors} kind="error" />
        <IssueList id="warnings" issues={warnings} kind="warning" />
        <VariablesPanel vars={vars} values={values} onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))} />
      </section>
      <section class="preview" aria-label="Preview of page 1" tabIndex={0}>
        <p id="preview-status" class="status" aria-live="polite">
          {status}
        </p>
        {preview && <img id="preview" src={preview.url} data-serial={preview.serial} alt="Page 1 of the document" />}
      </section>
    </div>
  );
}
