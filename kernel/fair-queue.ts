// The waiting jobs of one plugin: first in, first out within an organization, and organizations served in turn.
/**
 * One organization's bulk request (a hundred renders) must not make another's single job wait behind all of
 * it. Each organization with waiting jobs has its own queue; `shift` takes the next job of the organization
 * whose turn it is and sends that organization to the back of the line, so a job waits for at most one job of
 * each other waiting organization per free slot. An organization leaves the line when its queue empties and
 * joins at the back with its next job.
 */
export class FairQueue {
  /** Organization → its waiting job ids. The Map's insertion order is the line: the first key's turn is next. */
  readonly #byOrg = new Map<string, string[]>();
  #size = 0;

  /** Jobs waiting, of all organizations. */
  get size(): number {
    return this.#size;
  }

  push(orgId: string, jobId: string): void {
    const queue = this.#byOrg.get(orgId);
    if (queue) queue.push(jobId);
    else this.#byOrg.set(orgId, [jobId]);
    this.#size++;
  }

  /** The next job in turn, or undefined when none waits. */
  shift(): string | undefined {
    const next = this.#byOrg.entries().next();
    if (next.done) return undefined;
    const [orgId, queue] = next.value;
    const jobId = queue.shift()!;
    this.#size--;
    // Deleting and setting again moves the organization to the end of the Map's order: the back of the line.
    this.#byOrg.delete(orgId);
    if (queue.length) this.#byOrg.set(orgId, queue);
    return jobId;
  }
}
