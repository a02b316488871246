import { ConfigError, loadConfig } from '../../common/config';
import { allTaskQueues, taskQueueOf, workerSlotsOf } from '../../common/task-queues';
import { queuesToPoll } from '../../workers/worker';

const valid = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017/',
  ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  TEMPORAL_ADDRESS: '127.0.0.1:7233',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('task queue settings', () => {
  it('derives the ingest and delivery queues from TEMPORAL_TASK_QUEUE, and polls all three by default', () => {
    const config = loadConfig(valid);
    expect(allTaskQueues(config)).toEqual(['combo', 'combo-ingest', 'combo-deliveries']);
    expect(config.WORKER_TASK_QUEUES).toEqual(['interactive', 'ingest', 'deliveries']);
    expect(queuesToPoll(config).map((q) => q.taskQueue)).toEqual(['combo', 'combo-ingest', 'combo-deliveries']);
    expect(allTaskQueues(loadConfig({ ...valid, TEMPORAL_TASK_QUEUE: 'chat' }))).toEqual(['chat', 'chat-ingest', 'chat-deliveries']);
  });

  it('takes queue names of their own, and treats empty ones as unset', () => {
    const named = loadConfig({ ...valid, TEMPORAL_INGEST_TASK_QUEUE: 'uploads', TEMPORAL_DELIVERY_TASK_QUEUE: 'hooks' });
    expect([taskQueueOf(named, 'ingest'), taskQueueOf(named, 'deliveries')]).toEqual(['uploads', 'hooks']);
    const blank = loadConfig({ ...valid, TEMPORAL_INGEST_TASK_QUEUE: '', TEMPORAL_DELIVERY_TASK_QUEUE: ' ', WORKER_TASK_QUEUES: '' });
    expect(allTaskQueues(blank)).toEqual(['combo', 'combo-ingest', 'combo-deliveries']);
    expect(blank.WORKER_TASK_QUEUES).toEqual(['interactive', 'ingest', 'deliveries']);
  });

  it('refuses two groups on one queue', () => {
    expect(() => loadConfig({ ...valid, TEMPORAL_INGEST_TASK_QUEUE: 'combo' })).toThrow(
      new ConfigError(
        'configuration error: TEMPORAL_INGEST_TASK_QUEUE TEMPORAL_TASK_QUEUE, TEMPORAL_INGEST_TASK_QUEUE and TEMPORAL_DELIVERY_TASK_QUEUE must be three different queues',
      ),
    );
    expect(() => loadConfig({ ...valid, TEMPORAL_INGEST_TASK_QUEUE: 'bulk', TEMPORAL_DELIVERY_TASK_QUEUE: 'bulk' })).toThrow(ConfigError);
  });

  it('reads the groups a worker polls, each once, and refuses unknown or no groups', () => {
    const some = loadConfig({ ...valid, WORKER_TASK_QUEUES: ' deliveries, ingest ,deliveries' });
    expect(some.WORKER_TASK_QUEUES).toEqual(['deliveries', 'ingest']);
    expect(queuesToPoll(some).map((q) => q.taskQueue)).toEqual(['combo-deliveries', 'combo-ingest']);
    expect(() => loadConfig({ ...valid, WORKER_TASK_QUEUES: 'interactive,bulk' })).toThrow(
      /^configuration error: WORKER_TASK_QUEUES must list/,
    );
    expect(() => loadConfig({ ...valid, WORKER_TASK_QUEUES: ',' })).toThrow(/^configuration error: WORKER_TASK_QUEUES /);
  });

  it("gives each queue's worker its own slots", () => {
    const config = loadConfig({ ...valid, WORKER_DELIVERIES_MAX_WORKFLOW_TASKS: '8', WORKER_INGEST_MAX_ACTIVITY_TASKS: '2' });
    expect(workerSlotsOf(config, 'interactive')).toEqual({ maxWorkflowTasks: 40, maxActivityTasks: 100 });
    expect(workerSlotsOf(config, 'ingest')).toEqual({ maxWorkflowTasks: 40, maxActivityTasks: 2 });
    expect(workerSlotsOf(config, 'deliveries')).toEqual({ maxWorkflowTasks: 8, maxActivityTasks: 100 });
    expect(() => loadConfig({ ...valid, WORKER_INTERACTIVE_MAX_ACTIVITY_TASKS: '0' })).toThrow(/WORKER_INTERACTIVE_MAX_ACTIVITY_TASKS/);
  });
});
