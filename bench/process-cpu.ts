import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second. */
const TICKS_PER_SECOND = 100;

/** The local stack's parts, told apart by their command lines. */
const STACK_PARTS: Array<[string, RegExp]> = [
  ['Elasticsearch', /org\.elasticsearch|elasticsearch/],
  ['Temporal', /temporal server/],
  ['FerretDB + PostgreSQL', /ferretdb|^postgres/],
];

export type CpuSnapshot = Map<number, { part: string; ticks: number }>;

function ticksOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // utime and stime: fields 14 and 15, counted after the command name's closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU time used so far by each process of the stack and by the named ones (API, worker), all threads
 * included. Processes that come and go between two snapshots are missed: the stack's are long-lived.
 */
export function cpuSnapshot(named: Record<string, number>): CpuSnapshot {
  const byPid = new Map(Object.entries(named).map(([part, pid]) => [pid, part]));
  const snapshot: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      let part = byPid.get(pid);
      if (!part) {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        part = STACK_PARTS.find(([, pattern]) => pattern.test(cmdline))?.[0];
      }
      if (part) snapshot.set(pid, { part, ticks: ticksOf(pid) });
    } catch {
      // the process ended while being read
    }
  }
  return snapshot;
}

/** CPU milliseconds per part between two snapshots. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const used = new Map<string, number>();
  for (const [pid, { part, ticks }] of after) {
    const delta = ticks - (before.get(pid)?.ticks ?? ticks);
    used.set(part, (used.get(part) ?? 0) + (delta * 1000) / TICKS_PER_SECOND);
  }
  return used;
}
