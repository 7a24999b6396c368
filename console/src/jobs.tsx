// Jobs: the organization's render, tools and bulk jobs (GET /jobs), newest first, polled while any is unfinished,
// with errors, bulk progress and download links; filtered by kind and status.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, problemText } from './api.js';
import { ErrorLine, Head, Picker, when } from './parts.js';
import type { JobListItem } from '../../contracts/job-list.js';

export type JobItem = JobListItem;

const KINDS = ['render', 'tools', 'bulk'];
const STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'];
/** How often the list is read again while a job on it is unfinished. */
const POLL_MS = 1000;
const unfinished = (j: JobItem) => j.status === 'PENDING' || j.status === 'PROCESSING';

function Progress({ job }: { job: JobItem }) {
  if (job.items) {
    const { total, completed, failed } = job.items;
    return (
      <>
        <progress max={total} value={completed + failed} aria-label={`Items of bulk job ${job.id} ended`} />{' '}
        <span class="items">
          {completed}/{total} done{failed ? `, ${failed} failed` : ''}
        </span>
      </>
    );
  }
  return unfinished(job) ? <progress max={100} value={job.progress} aria-label={`Job ${job.id} progress`} /> : null;
}

export function Jobs({ apiKey }: { apiKey: string }) {
  const [kind, setKind] = useState('');
  const [status, setStatus] = useState('');
  const [jobs, setJobs] = useState<JobItem[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // How many items are shown: a poll reads that many again (the API gives at most 100 a page).
  const shown = useRef(20);
  // Each read is numbered: an answer to an older read (filters changed since, a poll overtaken) is dropped.
  const latest = useRef(0);

  const query = (limit: number, cursor?: string) => {
    const q = new URLSearchParams({ limit: String(limit) });
    if (kind) q.set('kind', kind);
    if (status) q.set('status', status);
    if (cursor) q.set('cursor', cursor);
    return `/jobs?${q}`;
  };

  const load = async () => {
    const n = ++latest.current;
    const r = await call(apiKey, 'GET', query(Math.min(100, Math.max(20, shown.current))));
    if (n !== latest.current) return;
    if (r.status !== 200) return setError(problemText(r));
    setError(null);
    setJobs(r.body.items);
    setNext(r.body.nextCursor);
  };

  useEffect(() => {
    shown.current = 20;
    setJobs(null);
    void load();
  }, [apiKey, kind, status]);

  // While any job shown is unfinished, read the list again each second; the timer goes with the page or a new list.
  useEffect(() => {
    if (!jobs?.some(unfinished)) return;
    const timer = setTimeout(() => void load(), POLL_MS);
    return () => clearTimeout(timer);
  }, [jobs]);

  const more = async () => {
    const n = ++latest.current;
    const r = await call(apiKey, 'GET', query(20, next!));
    if (n !== latest.current) return;
    if (r.status !== 200) return setError(problemText(r));
    const all = [...(jobs ?? []), ...r.body.items];
    shown.current = all.length;
    setJobs(all);
    setNext(r.body.nextCursor);
  };

  return (
    <section class="page jobs">
      <h1>Jobs</h1>
      <div class="filters">
        <Picker id="job-kind" label="Kind" value={kind} values={KINDS} onChange={setKind} />
        <Picker id="job-status" label="Status" value={status} values={STATUSES} onChange={setStatus} />
        <span class="note" aria-live="polite">
          {jobs?.some(unfinished) ? 'Updating while jobs run…' : ''}
        </span>
      </div>
      <ErrorLine id="jobs-error" text={error} />
      {jobs && !jobs.length && <p class="note">No jobs{kind || status ? ' match these filters' : ' yet'}.</p>}
      {jobs && jobs.length > 0 && (
        <table id="jobs">
          <Head columns={['Created', 'Kind', 'Action', 'Status', 'Finished', 'Output or error']} />
          <tbody>
            {jobs.map((j) => (
              <tr id={`job-${j.id}`} data-status={j.status}>
                <td>{when(j.createdAt)}</td>
                <td>{j.kind}</td>
                <th scope="row">
                  <code>{j.action}</code>
                  <div class="note">
                    <code>{j.id}</code>
                  </div>
                </th>
                <td>
                  <span class={`status ${j.status.toLowerCase()}`}>{j.status}</span> <Progress job={j} />
                </td>
                <td>{when(j.finishedAt)}</td>
                <td>
                  {j.downloadUrl && (
                    <a class="download" href={j.downloadUrl} download aria-label={`Download the output of ${j.action} job ${j.id}`}>
                      Download
                    </a>
                  )}
                  {j.status === 'FAILED' && (
                    <span class="error job-error">
                      {j.errorCode ? `${j.errorCode}: ` : ''}
                      {j.error}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button id="more-jobs" type="button" onClick={() => void more()}>
          Show older jobs
        </button>
      )}
    </section>
  );
}
