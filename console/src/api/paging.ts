/**
 * Server-side pagination of the API's lists (`page`, `page_size`, `total`): the page shown is kept
 * while the next one loads; another filter starts from the first page; a page left empty (its
 * last item revoked or deleted) shows the last page there is instead.
 */
import type { Page } from '@combo/client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

export const PAGE_SIZES = [10, 20, 50, 100] as const;

export interface PageRequest {
  page: number;
  page_size: number;
}

export interface PagedList<Item> {
  items: Item[];
  total: number;
  page: number;
  pageSize: number;
  setPage: (page: number) => void;
  setPageSize: (size: number) => void;
  isLoading: boolean;
  isFetching: boolean;
  error: unknown;
  refetch: () => void;
}

/** A list query keyed by `key` (the list and its filters) plus the page; `fetchPage` calls the client's `list`. */
export function usePagedList<Item>(
  key: readonly unknown[],
  fetchPage: (request: PageRequest) => Promise<Page<Item>>,
  initialPageSize = 20,
): PagedList<Item> {
  const keyText = JSON.stringify(key);
  const [position, setPosition] = useState({ key: keyText, page: 1, pageSize: initialPageSize });
  // Another filter: the first page.
  const page = position.key === keyText ? position.page : 1;
  const pageSize = position.pageSize;
  const query = useQuery({
    queryKey: [...key, { page, page_size: pageSize }],
    queryFn: async () => {
      let result = await fetchPage({ page, page_size: pageSize });
      const lastPage = Math.max(1, Math.ceil(result.total / pageSize));
      if (result.items.length === 0 && page > lastPage) result = await fetchPage({ page: lastPage, page_size: pageSize });
      return { items: result.items, total: result.total, page: result.page };
    },
    placeholderData: keepPreviousData,
  });
  return {
    items: query.data?.items ?? [],
    total: query.data?.total ?? 0,
    page: query.data?.page ?? page,
    pageSize,
    setPage: (next) => setPosition({ key: keyText, page: Math.max(1, next), pageSize }),
    setPageSize: (size) => setPosition({ key: keyText, page: 1, pageSize: size }),
    isLoading: query.isLoading,
    isFetching: query.isFetching,
    error: query.error,
    refetch: () => void query.refetch(),
  };
}
