/** The pages built so far, by their section's path (nav.ts); every other section shows what it will hold. */
import type { ComponentType } from 'react';
import { ApiKeys } from './ApiKeys';
import { Overview } from './Overview';

export const PAGES: Record<string, ComponentType> = {
  '/': Overview,
  '/settings/api-keys': ApiKeys,
};
