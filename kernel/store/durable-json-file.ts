// lowdb adapter that writes atomically and durably (temp file, fsync, rename) and coalesces bursts.
import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import type { Adapter } from 'lowdb';

export class DurableJsonFile<T> implements Adapter<T> {
  #writing: Promise<void> | null = null;
  #pending: { data: T; waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> } | null = null;

  constructor(private readonly filename: string) {}

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.filename, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new Error(`The store file ${this.filename} cannot be read (${(err as Error).message}); restore it from a backup or move it away to start empty.`);
    }
  }

  /** Resolves once a write that includes `data` (or a later state) is on disk. */
  write(data: T): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#pending) {
        this.#pending.data = data;
        this.#pending.waiters.push({ resolve, reject });
      } else {
        this.#pending = { data, waiters: [{ resolve, reject }] };
      }
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending) {
      const batch = this.#pending;
      this.#pending = null;
      this.#writing = writeFileAtomic(this.filename, JSON.stringify(batch.data), { fsync: true, mode: 0o600 });
      try {
        await this.#writing;
        for (const w of batch.waiters) w.resolve();
      } catch (err) {
        for (const w of batch.waiters) w.reject(err);
      }
    }
    this.#writing = null;
  }
}
