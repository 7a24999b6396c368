// Pieces the console's pages share: a table head, instants in UTC, an error line, and a secret shown once with a copy button.
import { useState } from 'preact/hooks';

export function Head({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col">{c}</th>
        ))}
      </tr>
    </thead>
  );
}

/** `2030-01-01T10:00:00.000Z` → `2030-01-01 10:00:00 UTC` (every instant the API gives is UTC). */
export function when(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '';
}

export function ErrorLine({ id, text }: { id: string; text: string | null }) {
  return text ? (
    <p id={id} class="error" role="alert">
      {text}
    </p>
  ) : null;
}

/**
 * A secret the API shows in one answer only (an API key, a webhook signing secret): shown here once, with a copy
 * button and the warning that it cannot be shown again. Dismissing it forgets it.
 */
export function ShownOnce({ id, label, secret, why, onDone }: { id: string; label: string; secret: string; why: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied.');
    } catch {
      setCopied('The browser did not allow copying: select the text and copy it.');
    }
  };
  return (
    <div class="shown-once" role="region" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{label}</h2>
      <p class="warning">
        <strong>Copy it now:</strong> it is shown this once. {why}
      </p>
      <div class="secret-row">
        <input id={id} class="secret" readOnly value={secret} aria-label={label} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="copy" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="done" onClick={onDone}>
          I have copied it
        </button>
      </div>
      <p class="note" aria-live="polite">
        {copied ?? ''}
      </p>
    </div>
  );
}

/**
 * A destructive action asked for twice: the button, then in its place the question with "Yes, …" and "Cancel".
 * `open` says whether the question shows (the page keeps which row asks, so only one does at a time).
 */
export function Confirmed(props: { open: boolean; onOpen: (open: boolean) => void; label: string; verb: string; question: string; cls: string; busy: boolean; onConfirm: () => void }) {
  const { open, onOpen, label, verb, question, cls, busy, onConfirm } = props;
  if (!open) {
    return (
      <button type="button" class={cls} aria-label={`${verb} ${label}`} onClick={() => onOpen(true)}>
        {verb}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={`Confirm: ${verb.toLowerCase()} ${label}`}>
      {question}{' '}
      <button type="button" class={`confirm-${cls} danger`} disabled={busy} onClick={onConfirm}>
        Yes, {verb.toLowerCase()}
      </button>{' '}
      <button type="button" class="cancel" onClick={() => onOpen(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A labelled <select> of `values` with "All" first (the empty value). */
export function Picker({ id, label, value, values, onChange }: { id: string; label: string; value: string; values: string[]; onChange: (v: string) => void }) {
  return (
    <label>
      {label}{' '}
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">All</option>
        {values.map((v) => (
          <option value={v}>{v}</option>
        ))}
      </select>
    </label>
  );
}
