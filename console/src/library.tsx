// The Library: the organization's documents, templates (its workspace and the built-in catalog), reusable blocks and
// style presets, searchable; each opens in the editor (a document to edit and save back, a template as a new
// document), inserts into it at the caret (a block) or styles it (a preset).
import { useEffect, useState } from 'preact/hooks';
import { call, problemText } from './api.js';
import { insertAtCursor, type Draft } from './draft.js';

type Kind = 'documents' | 'templates' | 'blocks' | 'styles';

interface Row {
  id: string;
  name: string;
  /** Small print beside the name: the template's scope, the block's status, the style's source, the document's version. */
  detail: string;
  updated: string;
}

const KINDS: Array<{ kind: Kind; label: string }> = [
  { kind: 'documents', label: 'Documents' },
  { kind: 'templates', label: 'Templates' },
  { kind: 'blocks', label: 'Blocks' },
  { kind: 'styles', label: 'Styles' },
];

const day = (iso: string | undefined) => (iso ? iso.slice(0, 10) : '');

/** Every list the Library shows, as rows (one page of up to 200 each: a console for people, not an export). */
async function load(apiKey: string, kind: Kind): Promise<Row[]> {
  const rows = async (path: string, map: (item: any) => Row) => {
    const a = await call(apiKey, 'GET', path);
    if (a.status !== 200) throw new Error(problemText(a));
    return (a.body.items as any[]).map(map);
  };
  switch (kind) {
    case 'documents':
      return rows('/documents?limit=200', (d) => ({ id: d.id, name: d.name, detail: `${d.type.toUpperCase()}, version ${d.version}`, updated: day(d.updatedAt) }));
    case 'templates': {
      const [workspace, catalog] = await Promise.all(
        ['workspace', 'catalog'].map((scope) => rows(`/templates?scope=${scope}&limit=200`, (t) => ({ id: t.id, name: t.name, detail: [scope === 'catalog' ? 'Catalog' : 'Workspace', t.category].filter(Boolean).join(', '), updated: day(t.updatedAt) }))),
      );
      return [...workspace!, ...catalog!];
    }
    case 'blocks':
      return rows('/reusable-blocks?limit=200', (b) => ({ id: b.id, name: b.name, detail: `${b.status.toLowerCase()}, version ${b.currentVersion}${b.category ? `, ${b.category}` : ''}`, updated: day(b.updatedAt) }));
    case 'styles':
      return rows('/styles?source=all', (s) => ({ id: s.id, name: s.name, detail: s.source === 'system' ? 'Built in' : 'Workspace', updated: day(s.updatedAt) }));
  }
}

const ACTION: Record<Kind, string> = { documents: 'Open', templates: 'Open as new document', blocks: 'Insert in editor', styles: 'Use in editor' };

export function Library({ apiKey, setDraft, openEditor }: { apiKey: string; setDraft: (update: (d: Draft) => Draft) => void; openEditor: () => void }) {
  const [kind, setKind] = useState<Kind>('documents');
  const [rows, setRows] = useState<Row[] | null>(null);
  const [search, setSearch] = useState('');
  const [message, setMessage] = useState('');

  useEffect(() => {
    setRows(null);
    setMessage('');
    void load(apiKey, kind).then(setRows, (err: Error) => (setRows([]), setMessage(err.message)));
  }, [apiKey, kind]);

  async function act(row: Row): Promise<void> {
    setMessage('');
    if (kind === 'documents') {
      const [md, doc] = await Promise.all([call(apiKey, 'GET', `/documents/${row.id}/markdown`), call(apiKey, 'GET', `/documents/${row.id}`)]);
      if (md.status !== 200 || doc.status !== 200) return setMessage(problemText(md.status !== 200 ? md : doc));
      // A document Markdown cannot carry (made from JSON with parts it has no syntax for) is not opened as text.
      if (md.body.format !== 'markdown') return setMessage(`${row.name} cannot be edited as Markdown: ${md.body.warning ?? 'it has parts Markdown cannot carry'}.`);
      setDraft(() => ({ content: md.body.markdown, style: doc.body.stylePresetId ?? '', doc: { id: row.id, name: doc.body.name, version: md.body.version, stylePresetId: doc.body.stylePresetId }, origin: null, cursor: 0 }));
    } else if (kind === 'templates') {
      const t = await call(apiKey, 'GET', `/templates/${row.id}`);
      if (t.status !== 200) return setMessage(problemText(t));
      if (!t.body.markdown) return setMessage(`${row.name} cannot be opened as Markdown: ${t.body.warning ?? 'it has parts Markdown cannot carry'}.`);
      setDraft(() => ({ content: t.body.markdown, style: t.body.stylePresetId ?? '', doc: null, origin: `template ${t.body.name}`, cursor: 0 }));
    } else if (kind === 'blocks') {
      setDraft((d) => insertAtCursor(d, `::block{id=${row.id}}`));
    } else {
      setDraft((d) => ({ ...d, style: row.id }));
    }
    openEditor();
  }

  const words = search.trim().toLowerCase();
  const shown = (rows ?? []).filter((r) => !words || `${r.name} ${r.detail}`.toLowerCase().includes(words));
  return (
    <div class="library">
      <div class="toolbar" aria-label="What to browse" role="group">
        {KINDS.map((k) => (
          <button type="button" id={`tab-${k.kind}`} aria-pressed={k.kind === kind} class={k.kind === kind ? 'current' : undefined} onClick={() => setKind(k.kind)}>
            {k.label}
          </button>
        ))}
        <label>
          Search{' '}
          <input id="library-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
      </div>
      {message && (
        <p id="library-message" class="error" role="alert">
          {message}
        </p>
      )}
      {rows === null ? (
        <p class="note">Loading…</p>
      ) : shown.length === 0 ? (
        <p class="note">{rows.length ? 'Nothing matches the search.' : `No ${kind} yet.`}</p>
      ) : (
        <table id="library-list" aria-label={KINDS.find((k) => k.kind === kind)!.label}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr data-id={r.id}>
                <td>{r.name}</td>
                <td>{r.detail}</td>
                <td>{r.updated}</td>
                <td>
                  <button type="button" class="open" onClick={() => void act(r).catch((err: Error) => setMessage(err.message))}>
                    {ACTION[kind]}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
