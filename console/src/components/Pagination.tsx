/** Moves through the pages of a server-side list: where we are, previous and next, page size. */
import { useId } from 'react';
import { PAGE_SIZES, type PagedList } from '../api/paging';
import { formatNumber } from './Time';

export function Pagination<Row>({ list, label }: { list: PagedList<Row>; label: string }) {
  const sizeId = useId();
  const first = list.total === 0 ? 0 : (list.page - 1) * list.pageSize + 1;
  const last = Math.min(list.page * list.pageSize, list.total);
  const lastPage = Math.max(1, Math.ceil(list.total / list.pageSize));
  return (
    <nav className="pagination" aria-label={`Pages of ${label}`}>
      <span className="muted" aria-live="polite">
        {formatNumber(first)}–{formatNumber(last)} of {formatNumber(list.total)}
      </span>
      <label htmlFor={sizeId} className="pagination-size">
        Per page
        <select id={sizeId} value={list.pageSize} onChange={(event) => list.setPageSize(Number(event.target.value))}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="button button-small" onClick={() => list.setPage(list.page - 1)} disabled={list.page <= 1}>
        Previous
      </button>
      <span>
        Page {list.page} of {lastPage}
      </span>
      <button type="button" className="button button-small" onClick={() => list.setPage(list.page + 1)} disabled={list.page >= lastPage}>
        Next
      </button>
    </nav>
  );
}
