import { NativeConnection, Worker } from '@temporalio/worker';

/** A worker process for the baseline workflows, shaped like the service's worker process. */
async function main() {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
    workflowsPath: require.resolve('./bare-workflow'),
    activities: { async noop() {} },
  });
  process.stdout.write('ready\n');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  process.stderr.write(`bare worker failed: ${(err as Error).message}\n`);
  process.exit(1);
});
