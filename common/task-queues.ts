/**
 * The service's task queues, one per kind of work, so that bulk work never holds interactive work
 * up: each has its own worker slots (a backlog of deliveries fills only the delivery queue's), and
 * a deployment may run workers for some of them only, or scale them apart.
 *
 * - `interactive` (TEMPORAL_TASK_QUEUE): completions and their sessions' workflows, tool approvals,
 *   agent tasks of triggers and cron jobs, the maintenance schedule. Its workers also register every
 *   other workflow and activity, so work started on it before the queues were split still ends.
 * - `ingest`: document parsing (uploads and reparses).
 * - `deliveries`: outbound webhook deliveries and historical replays (whose deliveries start on
 *   the replay's own queue).
 */
export const TASK_QUEUE_GROUPS = ['interactive', 'ingest', 'deliveries'] as const;
export type TaskQueueGroup = (typeof TASK_QUEUE_GROUPS)[number];

/** The settings that name the queues (common/config.ts). */
interface QueueSettings {
  TEMPORAL_TASK_QUEUE: string;
  TEMPORAL_INGEST_TASK_QUEUE?: string | undefined;
  TEMPORAL_DELIVERY_TASK_QUEUE?: string | undefined;
}

/** The name of a group's task queue: as configured, else derived from TEMPORAL_TASK_QUEUE. */
export function taskQueueOf(config: QueueSettings, group: TaskQueueGroup): string {
  switch (group) {
    case 'interactive':
      return config.TEMPORAL_TASK_QUEUE;
    case 'ingest':
      return config.TEMPORAL_INGEST_TASK_QUEUE ?? `${config.TEMPORAL_TASK_QUEUE}-ingest`;
    case 'deliveries':
      return config.TEMPORAL_DELIVERY_TASK_QUEUE ?? `${config.TEMPORAL_TASK_QUEUE}-deliveries`;
  }
}

/** Every group's task queue name, in TASK_QUEUE_GROUPS order. */
export const allTaskQueues = (config: QueueSettings): string[] => TASK_QUEUE_GROUPS.map((g) => taskQueueOf(config, g));

export interface WorkerSlots {
  /** Workflow tasks a worker runs at once on this queue. */
  maxWorkflowTasks: number;
  /** Activities (and, apart, local activities) a worker runs at once on this queue. */
  maxActivityTasks: number;
}

/** The settings of each group's worker slots (common/config.ts): WORKER_<GROUP>_MAX_WORKFLOW_TASKS and _MAX_ACTIVITY_TASKS. */
type SlotSettings = Record<`WORKER_${Uppercase<TaskQueueGroup>}_MAX_${'WORKFLOW' | 'ACTIVITY'}_TASKS`, number>;

/** A group's worker slots. */
export function workerSlotsOf(config: SlotSettings, group: TaskQueueGroup): WorkerSlots {
  const prefix = `WORKER_${group.toUpperCase() as Uppercase<TaskQueueGroup>}` as const;
  return { maxWorkflowTasks: config[`${prefix}_MAX_WORKFLOW_TASKS`], maxActivityTasks: config[`${prefix}_MAX_ACTIVITY_TASKS`] };
}
