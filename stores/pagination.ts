import { BSON, type Collection, type Document, type Filter, type Sort } from 'mongodb';
import { invalid } from '../common/errors';

export interface PageRequest {
  page: number;
  page_size: number;
  /** A previous page's `next_cursor`: the page after it (then `page` is not used and no `total` is counted). */
  after?: string;
  /** 'false': do not count `total` on a page-number request (as the query string carries it). */
  include_total?: 'true' | 'false';
}

export interface NamedPageRequest extends PageRequest {
  /** Only those whose name contains it, ignoring letter case. */
  name?: string;
}

export interface Page<T> {
  items: T[];
  /** Counted on page-number requests only (counting visits every matching item). */
  total?: number;
  page: number;
  page_size: number;
  /** The cursor of the page after this one (its last item's sort key); null on the last page. */
  next_cursor: string | null;
}

type SortSpec = Record<string, 1 | -1>;

/**
 * A cursor names the last item of a page by the values of the list's sort fields (an index's key),
 * in MongoDB Extended JSON so that dates stay dates, base64url for a query string. The field names
 * travel with it: a cursor of another list (another sort) is refused instead of paging wrongly.
 */
export function encodeCursor(sort: SortSpec, doc: Document): string {
  const fields = Object.keys(sort);
  const text = BSON.EJSON.stringify({ f: fields.join(','), v: fields.map((f) => doc[f] as unknown) }, { relaxed: false });
  return Buffer.from(text).toString('base64url');
}

export function decodeCursor(sort: SortSpec, cursor: string): unknown[] {
  const fields = Object.keys(sort);
  let parsed: unknown;
  try {
    parsed = BSON.EJSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'), { relaxed: false });
  } catch {
    parsed = null;
  }
  const ok =
    parsed !== null &&
    typeof parsed === 'object' &&
    (parsed as { f?: unknown }).f === fields.join(',') &&
    Array.isArray((parsed as { v?: unknown }).v) &&
    (parsed as { v: unknown[] }).v.length === fields.length;
  if (!ok) throw invalid('`after` is not a cursor of this list (use a `next_cursor` it returned)', { after: cursor });
  return (parsed as { v: unknown[] }).v;
}

/**
 * The items strictly after the cursor in the sort's order, as a bound on the first sort field (an
 * index range) and an $or that breaks ties on the next fields: served by an index whose key is the
 * filter's equality fields followed by the sort fields, without visiting the items before it.
 */
function afterCursor(sort: SortSpec, values: unknown[]): Document {
  const fields = Object.keys(sort);
  const beyond = (f: string) => (sort[f] === -1 ? '$lt' : '$gt');
  const branches = fields.map((field, i) => {
    const branch: Document = {};
    fields.slice(0, i).forEach((f, j) => (branch[f] = values[j]));
    branch[field] = { [beyond(field)]: values[i] };
    return branch;
  });
  const first = fields[0]!;
  return { $and: [{ [first]: { [sort[first] === -1 ? '$lte' : '$gte']: values[0] } }, { $or: branches }] };
}

/**
 * Reads one page, newest first unless a sort is given (the sort must end with `_id` so that it is
 * total). A page-number request skips what comes before it and counts `total` (both visit every
 * item before or matching: cheap on small lists only); a cursor request (`after`) reads only its
 * page. Every page carries the cursor of the next.
 */
export async function findPage<TDoc extends Document, TOut>(
  collection: Collection<TDoc>,
  filter: Filter<TDoc>,
  { page, page_size, after, include_total }: PageRequest,
  present: (doc: TDoc) => TOut,
  sort: SortSpec = { created_at: -1, _id: -1 },
): Promise<Page<TOut>> {
  let query = filter as Document;
  if (after !== undefined) {
    const bound = afterCursor(sort, decodeCursor(sort, after));
    query = { ...query, $and: [...((query.$and as Document[] | undefined) ?? []), ...(bound.$and as Document[])] };
  }
  const skip = after === undefined ? (page - 1) * page_size : 0;
  const [docs, total] = await Promise.all([
    collection
      .find(query as Filter<TDoc>)
      .sort(sort as Sort)
      .skip(skip)
      .limit(page_size + 1)
      .toArray(),
    after === undefined && include_total !== 'false' ? collection.countDocuments(filter) : Promise.resolve(undefined),
  ]);
  const more = docs.length > page_size;
  const shown = docs.slice(0, page_size) as TDoc[];
  return {
    items: shown.map((d) => present(d)),
    ...(total === undefined ? {} : { total }),
    page: after === undefined ? page : 1,
    page_size,
    next_cursor: more ? encodeCursor(sort, shown[shown.length - 1]!) : null,
  };
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
