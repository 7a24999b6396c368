// The embedded store's older ledger entries, moved out of memory into `ledger-archive.jsonl` (one entry a line, appended).
import { readFileSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { LedgerEntry } from '../model.js';

/** The entries of each organization kept in memory by default: the most `GET /credits` shows (`limit` 1–500). */
export const LEDGER_KEPT_PER_ORG = 500;

/**
 * The ledger only grows (a charge per completed job), and the API shows an organization's newest 500 entries at most:
 * the rest is kept on disk, not in memory. After each snapshot, the entries beyond their organization's newest
 * `keptPerOrg` are appended to the archive and made durable; the next snapshot leaves them out of memory (and so out of
 * `quire.json`). An entry is therefore always in the snapshot or journal, or durably in the archive — after a crash
 * between the two it is in both, and readers keep the first copy of each id.
 */
export class LedgerArchive {
  /** Entries durable in the archive and still in memory: the next snapshot leaves them out. */
  readonly #archived = new Set<LedgerEntry>();

  constructor(
    readonly filename: string,
    readonly keptPerOrg = LEDGER_KEPT_PER_ORG,
  ) {}

  /**
   * After a start: the entries in memory that the archive's last append already holds (a close archives after its
   * snapshot, so they are in both), marked so that the next snapshot leaves them out instead of appending them again.
   */
  async recall(ledger: readonly LedgerEntry[]): Promise<void> {
    const candidates = this.#old(ledger);
    if (!candidates.length) return;
    const ids = await this.#tailIds(candidates.length);
    for (const e of candidates) if (ids.has(e.id)) this.#archived.add(e);
  }

  /** The ids on the last `n` complete lines of the archive (fewer when it has fewer). */
  async #tailIds(n: number): Promise<Set<string>> {
    let size: number;
    try {
      size = (await stat(this.filename)).size;
    } catch {
      return new Set();
    }
    const fh = await open(this.filename, 'r');
    try {
      for (let window = Math.min(size, n * 512 + 4096); ; window = Math.min(size, window * 2)) {
        const buf = Buffer.alloc(window);
        await fh.read(buf, 0, window, size - window);
        const lines = buf.toString('utf8').split('\n');
        if (window < size) lines.shift(); // the first may be cut
        const complete = lines.slice(0, -1); // the last is what follows the final newline (empty, or a broken append)
        if (complete.length >= n || window === size) {
          const ids = new Set<string>();
          for (const line of complete.slice(-n)) {
            try {
              ids.add((JSON.parse(line) as LedgerEntry).id);
            } catch {
              // a damaged line: its entry is appended again, and readers keep one copy
            }
          }
          return ids;
        }
      }
    } finally {
      await fh.close();
    }
  }

  /** The entries beyond their organization's newest `keptPerOrg`, oldest first, not archived yet. */
  #old(ledger: readonly LedgerEntry[]): LedgerEntry[] {
    const seen = new Map<string, number>();
    const old: LedgerEntry[] = [];
    for (let i = ledger.length - 1; i >= 0; i--) {
      const e = ledger[i]!;
      const n = (seen.get(e.orgId) ?? 0) + 1;
      seen.set(e.orgId, n);
      if (n > this.keptPerOrg && !this.#archived.has(e)) old.push(e);
    }
    return old.reverse();
  }

  /** The ledger without the entries already archived; synchronous, for a snapshot's capture. */
  prune(ledger: LedgerEntry[]): LedgerEntry[] {
    if (!this.#archived.size) return ledger;
    const kept = ledger.filter((e) => !this.#archived.has(e));
    this.#archived.clear();
    return kept;
  }

  /**
   * Appends the entries beyond their organization's newest `keptPerOrg` (not archived yet) to the archive and syncs it;
   * the next `prune` drops them. A failed write archives nothing: the entries stay in memory, the next snapshot retries.
   */
  async archiveOld(ledger: readonly LedgerEntry[]): Promise<number> {
    const old = this.#old(ledger);
    if (!old.length) return 0;
    const text = old.map((e) => `${JSON.stringify(e)}\n`).join('');
    try {
      const fh = await open(this.filename, 'a+', 0o600);
      try {
        await cutBrokenEnd(fh);
        await fh.write(text);
        await fh.datasync();
      } finally {
        await fh.close();
      }
    } catch {
      return 0;
    }
    for (const e of old) this.#archived.add(e);
    return old.length;
  }

  /** Every archived entry in the order written, each id once; an unterminated last line (a crash mid-write) is skipped. */
  read(): LedgerEntry[] {
    let text: string;
    try {
      text = readFileSync(this.filename, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const ids = new Set<string>();
    const out: LedgerEntry[] = [];
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (!line) return;
      let e: LedgerEntry;
      try {
        e = JSON.parse(line) as LedgerEntry;
      } catch (err) {
        if (i === lines.length - 1) return; // the unterminated last line of an interrupted append
        throw new Error(`Line ${i + 1} of the ledger archive ${this.filename} is corrupt (${(err as Error).message}); restore the data dir from a backup.`);
      }
      if (ids.has(e.id)) return;
      ids.add(e.id);
      out.push(e);
    });
    return out;
  }
}

/**
 * An append cut short by a crash leaves an unterminated last line; its entries were still in memory and are written
 * again, so the broken end is cut off first (else it would run into the next line).
 */
async function cutBrokenEnd(fh: FileHandle): Promise<void> {
  const { size } = await fh.stat();
  if (!size) return;
  const last = Buffer.alloc(1);
  await fh.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return;
  let end = 0;
  for (let pos = size; pos > 0 && !end; ) {
    const len = Math.min(pos, 64 * 1024);
    pos -= len;
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, pos);
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) end = pos + nl + 1;
  }
  await fh.truncate(end);
}

/** The whole ledger in order: the archived entries, then those in memory that are not archived too (after a crash). */
export function wholeLedger(archived: LedgerEntry[], inMemory: readonly LedgerEntry[]): LedgerEntry[] {
  const ids = new Set(archived.map((e) => e.id));
  return [...archived, ...inMemory.filter((e) => !ids.has(e.id))];
}
