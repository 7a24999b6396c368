// The Extended Markdown editor: line numbers, the checks at their line and column, a live page-1 preview and "save as document".
import { useEffect, useRef, useState } from 'preact/hooks';
import { blobUrl, call, problemText } from './api.js';

/** Quiet time after the last keystroke before the preview is rendered again. */
const DEBOUNCE_MS = 300;

const SAMPLE = ['---', 'document:', '  title: Quarterly note', 'variables:', '  quarter: Q3', '---', '', '# Quarterly note, {{quarter}}', '', 'Sales rose **12 %** this quarter.', '', '- Orders: 1,240', '- Returns: 31', ''].join('\n');

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

/** The style preset picker: the built-in catalog and the organization's own (GET /styles); '' is none. */
function StylePicker({ apiKey, value, onChange }: { apiKey: string; value: string; onChange: (id: string) => void }) {
  const [styles, setStyles] = useState<Array<{ id: string; name: string; source: string }>>([]);
  useEffect(() => void call(apiKey, 'GET', '/styles').then((a) => a.status === 200 && setStyles(a.body.items)), [apiKey]);
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

export function Editor({ apiKey, onSpent }: { apiKey: string; onSpent: () => void }) {
  const [content, setContent] = useState(SAMPLE);
  const [style, setStyle] = useState('');
  const [errors, setErrors] = useState<Issue[]>([]);
  const [warnings, setWarnings] = useState<Issue[]>([]);
  const [preview, setPreview] = useState<{ url: string; jobId: string } | null>(null);
  const [status, setStatus] = useState('');
  const [pdf, setPdf] = useState('');
  const [saved, setSaved] = useState<{ id?: string; error?: string } | null>(null);
  const gutter = useRef<HTMLDivElement>(null);
  // Only the newest edit's answers are shown: a slow render of older text never replaces a newer preview.
  const latest = useRef(0);

  useEffect(() => {
    const mine = ++latest.current;
    const timer = setTimeout(() => void refresh(mine, content, style).catch((err: Error) => mine === latest.current && setStatus(`The preview failed: ${err.message}`)), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [content, style]);

  useEffect(() => () => preview && URL.revokeObjectURL(preview.url), [preview]);

  /** The request of the validate, render and save routes alike: the text, and the preset when one is picked. */
  const request = (text: string, preset: string) => (preset ? { content: text, stylePresetId: preset } : { content: text });

  async function refresh(mine: number, text: string, preset: string): Promise<void> {
    setStatus('Checking…');
    const checked = await call(apiKey, 'POST', '/render/validate/markdown', request(text, preset));
    if (mine !== latest.current) return;
    if (checked.status !== 200) return setStatus(problemText(checked));
    setErrors(checked.body.errors);
    setWarnings(checked.body.warnings);
    if (!checked.body.valid) return setStatus('Fix the errors to update the preview.');
    setStatus('Rendering…');
    const started = performance.now();
    // One page at screen resolution; ?wait= answers with the finished job in the same round trip.
    let job = await call(apiKey, 'POST', '/render/markdown/images?wait=10', { ...request(text, preset), image: { format: 'png', dpi: 96, pages: ['1'] } });
    if (job.status === 202) job = await call(apiKey, 'GET', `/render/${job.body.jobId}?waitMs=20000`);
    if (mine !== latest.current) return;
    if (job.status >= 300) return setStatus(problemText(job));
    onSpent();
    if (job.body.status !== 'COMPLETED') return setStatus(`The render ${job.body.status.toLowerCase()}: ${job.body.error?.message ?? job.body.error ?? ''}`);
    const url = await blobUrl(apiKey, `/render/${job.body.jobId}/download`);
    if (mine !== latest.current) return URL.revokeObjectURL(url);
    setPreview({ url, jobId: job.body.jobId });
    setStatus(`Page 1 rendered in ${Math.round(performance.now() - started)} ms`);
  }

  /** Renders the whole document to PDF (one round trip with ?wait=) and hands the file to the browser as a download. */
  async function downloadPdf(): Promise<void> {
    setPdf('Rendering the PDF…');
    let job = await call(apiKey, 'POST', '/render/markdown?wait=30', request(content, style));
    if (job.status === 202) job = await call(apiKey, 'GET', `/render/${job.body.jobId}?waitMs=30000`);
    if (job.status >= 300) return setPdf(problemText(job));
    onSpent();
    if (job.body.status !== 'COMPLETED') return setPdf(`The render ${job.body.status.toLowerCase()}: ${job.body.error ?? ''}`);
    const url = await blobUrl(apiKey, `/render/${job.body.jobId}/download`);
    const a = document.createElement('a');
    a.href = url;
    a.download = job.body.filename ?? 'document.pdf';
    a.click();
    // The browser has taken the file once the click's task ran; the blob is not needed after.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setPdf(`Downloaded ${a.download} (${job.body.pageCount} page${job.body.pageCount === 1 ? '' : 's'})`);
  }

  async function save(): Promise<void> {
    setSaved(null);
    const r = await call(apiKey, 'POST', '/documents/markdown', request(content, style));
    if (r.status === 201) setSaved({ id: r.body.id });
    else {
      if (Array.isArray(r.body?.errors)) setErrors(r.body.errors);
      setSaved({ error: problemText(r) });
    }
  }

  const lines = content.split('\n').length;
  const badLines = new Set(errors.map((e) => e.line));
  return (
    <div class="editor-page">
      <section class="source" aria-label="Extended Markdown">
        <div class="toolbar">
          <StylePicker apiKey={apiKey} value={style} onChange={setStyle} />
          <button id="download-pdf" type="button" onClick={() => void downloadPdf().catch((err: Error) => setPdf(`The download failed: ${err.message}`))}>
            Download PDF
          </button>
          <button id="save" type="button" onClick={() => void save()}>
            Save as document
          </button>
          {saved?.id && (
            <span class="saved">
              Saved as document <code id="saved-id">{saved.id}</code>
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
            aria-label="Extended Markdown source"
            spellcheck={false}
            value={content}
            onInput={(e) => setContent(e.currentTarget.value)}
            onScroll={(e) => gutter.current && (gutter.current.scrollTop = e.currentTarget.scrollTop)}
          />
        </div>
        <IssueList id="errors" issues={errors} kind="error" />
        <IssueList id="warnings" issues={warnings} kind="warning" />
      </section>
      <section class="preview" aria-label="Preview of page 1" tabIndex={0}>
        <p id="preview-status" class="status" aria-live="polite">
          {status}
        </p>
        {preview && <img id="preview" src={preview.url} data-job-id={preview.jobId} alt="Page 1 of the rendered PDF" />}
      </section>
    </div>
  );
}
