// Append-only journal of store operations (one JSON line per change) with group commit and compaction.
import path from 'node:path';
import { open, readFile, type FileHandle } from 'node:fs/promises';

/** One line of the journal: the operations of one change, numbered in the order they happened. */
export interface JournalEntry<Op> {
  /** 1-based line number in the file, for error messages. */
  line: number;
  seq: number;
  ops: Op[];
}

export interface JournalOptions {
  /** File name of the snapshot, for messages. */
  snapshotName: string;
  /** Compact once the file holds this many lines ... */
  compactAfterLines: number;
  /** ... or this many bytes. */
  compactAfterBytes: number;
  /**
   * Writes a snapshot durably that holds every operation up to and including `seq`. It must capture
   * the state synchronously, before its first await: changes made meanwhile belong to later lines.
   */
  snapshot: (seq: number) => Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Batch {
  chunks: string[];
  waiters: Waiter[];
}

/** fsync of a directory: makes a rename or a newly created file in it survive a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class Journal<Op> {
  #fh: FileHandle | null = null;
  #closing = false;
  #failed: Error | null = null;
  /** Last sequence number handed out; the in-memory state includes every operation up to it. */
  #seq = 0;
  #lines = 0;
  #bytes = 0;
  #compactAtLines: number;
  #compactAtBytes: number;
  #pending: Batch | null = null;
  #draining: Promise<void> | null = null;

  constructor(readonly filename: string, private readonly options: JournalOptions) {
    this.#compactAtLines = options.compactAfterLines;
    this.#compactAtBytes = options.compactAfterBytes;
  }

  get seq(): number {
    return this.#seq;
  }

  /** Lines and bytes currently in the file (acknowledged lines, including ones a snapshot already holds). */
  get size(): { lines: number; bytes: number } {
    return { lines: this.#lines, bytes: this.#bytes };
  }

  /**
   * Reads the journal and returns the entries after `snapshotSeq`, in order, then opens it for
   * appending. An unterminated last line (a crash in the middle of an append, never acknowledged)
   * is cut off; any other unreadable line is an error naming it.
   */
  async open(snapshotSeq: number): Promise<Array<JournalEntry<Op>>> {
    let buf: Buffer;
    try {
      buf = await readFile(this.filename);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      buf = Buffer.alloc(0);
    }
    const complete = buf.lastIndexOf(0x0a) + 1;
    const text = buf.subarray(0, complete).toString('utf8');
    const lines = text ? text.slice(0, -1).split('\n') : [];
    const entries: Array<JournalEntry<Op>> = [];
    let expected = snapshotSeq + 1;
    for (let i = 0; i < lines.length; i++) {
      const line = i + 1;
      let parsed: { seq?: unknown; ops?: unknown };
      try {
        parsed = JSON.parse(lines[i]!) as typeof parsed;
      } catch (err) {
        throw this.#corrupt(line, (err as Error).message);
      }
      if (typeof parsed !== 'object' || parsed === null || !Number.isSafeInteger(parsed.seq) || !Array.isArray(parsed.ops)) {
        throw this.#corrupt(line, 'it is not {"seq": <integer>, "ops": [...]}');
      }
      const seq = parsed.seq as number;
      if (seq <= snapshotSeq) continue; // already in the snapshot: compaction stopped before truncating
      if (seq !== expected) {
        throw new Error(
          `Line ${line} of the journal ${this.filename} holds change ${seq}, but change ${expected} comes next after the snapshot ${this.options.snapshotName} (which ends at change ${snapshotSeq}): ` +
            'the two files come from different moments. Restore both from the same backup, or move the journal away to start from the snapshot alone.',
        );
      }
      expected++;
      entries.push({ line, seq, ops: parsed.ops as Op[] });
    }
    this.#seq = expected - 1;
    this.#lines = lines.length;
    this.#bytes = complete;
    this.#fh = await open(this.filename, 'a', 0o600);
    if (complete < buf.length) {
      // The torn tail was never acknowledged; cut it so the next append starts on a line of its own.
      await this.#fh.truncate(complete);
      await this.#fh.datasync();
    }
    await fsyncDir(path.dirname(this.filename));
    return entries;
  }

  /**
   * Numbers and serialises a change now (throws, changing nothing, when it cannot be written) and
   * resolves once the line is durable: written and fdatasync'ed, or held by a durable snapshot.
   * Changes arriving while a write is under way go together into the next write.
   */
  append(ops: Op[]): Promise<void> {
    if (this.#failed) throw this.#failed;
    if (!this.#fh || this.#closing) throw new Error(`The journal ${this.filename} is not open; the store was not initialised or is already closed.`);
    const seq = this.#seq + 1;
    const chunk = JSON.stringify({ seq, ops }) + '\n';
    this.#seq = seq;
    const batch = (this.#pending ??= { chunks: [], waiters: [] });
    batch.chunks.push(chunk);
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    // Started on a microtask, so the caller applies its change to memory before any snapshot is taken.
    this.#draining ??= Promise.resolve().then(() => this.#drain());
    return done;
  }

  /** Resolves once no write or compaction is under way. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Waits for pending writes, compacts (snapshot, then an empty journal) and closes the file. */
  async close(): Promise<void> {
    if (!this.#fh) return;
    this.#closing = true;
    await this.idle();
    try {
      if (this.#failed) {
        throw new Error(`${this.#failed.message} The store was closed without a snapshot; the journal is replayed on the next start.`);
      }
      await this.#compact(true);
    } finally {
      await this.#fh.close();
      this.#fh = null;
    }
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending && !this.#failed) {
        const batch = this.#pending;
        this.#pending = null;
        const text = batch.chunks.join('');
        try {
          await this.#write(text);
        } catch (err) {
          this.#fail(err, batch);
          return;
        }
        this.#lines += batch.chunks.length;
        this.#bytes += Buffer.byteLength(text);
        for (const w of batch.waiters) w.resolve();
        if (this.#lines >= this.#compactAtLines || this.#bytes >= this.#compactAtBytes) await this.#compact(false);
      }
    } finally {
      this.#draining = null;
    }
  }

  async #write(text: string): Promise<void> {
    const buf = Buffer.from(text, 'utf8');
    for (let off = 0; off < buf.length; ) {
      const { bytesWritten } = await this.#fh!.write(buf, off, buf.length - off);
      off += bytesWritten;
    }
    await this.#fh!.datasync();
  }

  /**
   * Snapshot, then truncate. Changes not yet written are held by the snapshot, so they are
   * acknowledged with it; a crash between the two steps leaves lines the snapshot already holds,
   * which `open` skips by their sequence numbers.
   */
  async #compact(strict: boolean): Promise<void> {
    const absorbed = this.#pending;
    this.#pending = null;
    try {
      await this.options.snapshot(this.#seq);
    } catch (err) {
      // The journal is still complete: its pending lines go first into the next write.
      if (absorbed) {
        const later = this.#pending as Batch | null;
        this.#pending = later ? { chunks: [...absorbed.chunks, ...later.chunks], waiters: [...absorbed.waiters, ...later.waiters] } : absorbed;
      }
      this.#compactAtLines = this.#lines + this.options.compactAfterLines;
      this.#compactAtBytes = this.#bytes + this.options.compactAfterBytes;
      if (strict) throw err;
      return;
    }
    for (const w of absorbed?.waiters ?? []) w.resolve();
    try {
      await this.#fh!.truncate(0);
      await this.#fh!.datasync();
      this.#lines = 0;
      this.#bytes = 0;
    } catch {
      // Harmless: the lines left are all in the snapshot and skipped on replay; the next compaction retries.
    }
    this.#compactAtLines = this.#lines + this.options.compactAfterLines;
    this.#compactAtBytes = this.#bytes + this.options.compactAfterBytes;
  }

  #fail(err: unknown, batch: Batch): void {
    this.#failed = new Error(
      `Writing the journal ${this.filename} failed (${(err as Error).message}); the store accepts no more changes. ` +
        'Every change acknowledged before is in the journal: fix the cause (disk full? permissions?) and restart Quire.',
      { cause: err },
    );
    const waiters = [...batch.waiters, ...(this.#pending?.waiters ?? [])];
    this.#pending = null;
    for (const w of waiters) w.reject(this.#failed);
  }

  #corrupt(line: number, why: string): Error {
    return new Error(
      `Line ${line} of the journal ${this.filename} is corrupt (${why}). Only an unterminated last line is expected after a crash, and is skipped; ` +
        `this one is not, so the file was damaged otherwise. Restore the data dir from a backup, or keep the changes before it by cutting the file to its first ${line - 1} lines.`,
    );
  }
}
