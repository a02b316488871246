/**
 * A list of the API as a table, paged on the server: the loading, error and empty states, and the
 * pagination controls under it. Columns say how to render a row.
 */
import type { ReactNode } from 'react';
import type { PagedList } from '../api/paging';
import { ErrorBanner } from './ErrorBanner';
import { Pagination } from './Pagination';

export interface Column<Row> {
  key: string;
  header: string;
  render: (row: Row) => ReactNode;
  /** `numeric` right-aligns; `actions` keeps the cell narrow. */
  kind?: 'numeric' | 'actions';
}

interface DataTableProps<Row> {
  /** What the table lists, for assistive technology ("API keys"). */
  caption: string;
  columns: Column<Row>[];
  list: PagedList<Row>;
  rowKey: (row: Row) => string;
  /** Shown when the list is empty (say what to do next). */
  empty: ReactNode;
}

export function DataTable<Row>({ caption, columns, list, rowKey, empty }: DataTableProps<Row>) {
  if (list.error && list.items.length === 0)
    return <ErrorBanner error={list.error} title={`Could not load the ${caption}`} onRetry={list.refetch} />;
  if (list.isLoading) return <p className="muted loading">Loading {caption}…</p>;
  if (list.total === 0 && list.items.length === 0) return <>{empty}</>;
  return (
    <div className="table-block">
      {list.error !== null && <ErrorBanner error={list.error} title={`Could not refresh the ${caption}`} onRetry={list.refetch} />}
      <div className="table-scroll">
        <table className="table" aria-busy={list.isFetching}>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.key} scope="col" className={column.kind ? `cell-${column.kind}` : undefined}>
                  {column.kind === 'actions' ? <span className="visually-hidden">{column.header}</span> : column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {list.items.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((column) => (
                  <td key={column.key} className={column.kind ? `cell-${column.kind}` : undefined}>
                    {column.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pagination list={list} label={caption} />
    </div>
  );
}
