import type { Collection, Document, Filter, Sort } from 'mongodb';

export interface PageRequest {
  page: number;
  page_size: number;
}

export interface NamedPageRequest extends PageRequest {
  /** Only those whose name contains it, ignoring letter case. */
  name?: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** Reads one page and the total in parallel; newest first unless a sort is given. */
export async function findPage<TDoc extends Document, TOut>(
  collection: Collection<TDoc>,
  filter: Filter<TDoc>,
  { page, page_size }: PageRequest,
  present: (doc: TDoc) => TOut,
  sort: Sort = { created_at: -1, _id: -1 },
): Promise<Page<TOut>> {
  const [docs, total] = await Promise.all([
    collection
      .find(filter)
      .sort(sort)
      .skip((page - 1) * page_size)
      .limit(page_size)
      .toArray(),
    collection.countDocuments(filter),
  ]);
  return { items: docs.map((d) => present(d as TDoc)), total, page, page_size };
}

/** A list's filter: the tenant's, and with `name`, those whose name contains it ignoring letter case (matched literally). */
export function tenantNamed(tenantId: string, { name }: { name?: string }) {
  if (!name) return { tenant_id: tenantId };
  return { tenant_id: tenantId, name: { $regex: name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' } };
}

/** A [since, until) condition on a date field (ISO bounds as the API received them); undefined when neither is given. */
export function dateRange(range: { since?: string; until?: string }): { $gte?: Date; $lt?: Date } | undefined {
  if (!range.since && !range.until) return undefined;
  return {
    ...(range.since ? { $gte: new Date(range.since) } : {}),
    ...(range.until ? { $lt: new Date(range.until) } : {}),
  };
}
