import type { Db } from 'mongodb';
import { createMongoActivities } from './mongo';

export interface ActivityDeps {
  db: Db;
}

/** All activities, one factory per external system, merged for the worker. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMongoActivities({ db: deps.db }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
