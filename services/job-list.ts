// GET /jobs: an organization's render, tools and bulk render jobs in one list, newest first, filtered and paged.
import type { JobStatus } from '../kernel/model.js';
import type { JobListFilter, JobListKind, JobListRow, Store } from '../kernel/store/store.js';
import type { JobList, JobListItem } from '../contracts/job-list.js';
import type { BulkService } from './bulk-service.js';
import type { DownloadLinks } from './download-links.js';
import { decodeCursor, encodeCursor, type PageRequest } from './document-service.js';

export interface JobListQuery extends PageRequest {
  kinds: JobListKind[];
  statuses: JobStatus[];
}

/**
 * The store filters by the status it keeps; a bulk job keeps PENDING until it ends, while its view is PROCESSING once an
 * item started. So a PROCESSING filter asks the store for PENDING too and the answer keeps what its view matches: such a
 * page may hold fewer than `limit` items and still have a next one.
 */
export async function listJobs(store: Store, links: DownloadLinks, bulk: BulkService, orgId: string, query: JobListQuery): Promise<JobList> {
  const statuses = query.statuses.includes('PROCESSING') && !query.statuses.includes('PENDING') ? [...query.statuses, 'PENDING' as const] : query.statuses;
  const filter: JobListFilter = { kinds: query.kinds, statuses };
  const rows = await store.listJobs(orgId, filter, query.limit + 1, query.cursor === null ? undefined : decodeCursor(query.cursor));
  const page = rows.slice(0, query.limit);
  const items = (await Promise.all(page.map((r) => itemOf(r, links, bulk)))).filter((i) => !query.statuses.length || query.statuses.includes(i.status));
  const last = page[page.length - 1];
  const key = last && (last.kind === 'job' ? last.job : last.bulk);
  return { items, nextCursor: rows.length > query.limit && key ? encodeCursor({ createdAt: key.createdAt, id: key.id }) : null };
}

async function itemOf(row: JobListRow, links: DownloadLinks, bulk: BulkService): Promise<JobListItem> {
  if (row.kind === 'job') {
    const j = row.job;
    const kind = j.kind ?? 'tools';
    return {
      id: j.id,
      kind,
      action: j.action,
      status: j.status,
      createdAt: j.createdAt,
      finishedAt: j.completedAt,
      error: j.error,
      errorCode: j.errorCode,
      statusPath: kind === 'render' ? `/render/${j.id}` : `/tools/jobs/${j.id}`,
      downloadUrl: links.downloadUrl(j),
      creditCost: j.estimatedCredits,
      progress: j.progress,
      items: null,
    };
  }
  // The bulk job as GET /bulk-render/{id} shows it: while it runs, its counts are its items' render jobs'.
  const view = await bulk.view(row.bulk);
  const ended = view.completedItems + view.failedItems;
  return {
    id: view.bulkJobId,
    kind: 'bulk',
    action: 'bulk-render',
    status: view.status,
    createdAt: view.createdAt,
    finishedAt: view.completedAt,
    error: view.error,
    errorCode: null,
    statusPath: `/bulk-render/${view.bulkJobId}`,
    downloadUrl: view.downloadUrl,
    creditCost: view.creditCost,
    progress: view.totalItems ? Math.round((100 * ended) / view.totalItems) : 100,
    items: { total: view.totalItems, completed: view.completedItems, failed: view.failedItems },
  };
}
