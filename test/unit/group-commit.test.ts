import { createGroupCommit, type GroupOutcome } from '../../common/group-commit';

/** A grouped request that records each group it was given and answers when the test says so. */
function recordingRun() {
  const groups: Array<{
    key: string;
    inputs: number[];
    answer: (outcomes?: Array<GroupOutcome<number>>) => void;
    fail: (e: Error) => void;
  }> = [];
  const run = (key: string, inputs: number[]) =>
    new Promise<Array<GroupOutcome<number>>>((resolve, reject) =>
      groups.push({
        key,
        inputs,
        answer: (outcomes) => resolve(outcomes ?? inputs.map((n) => ({ ok: true, value: n * 10 }))),
        fail: reject,
      }),
    );
  return { groups, run };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('sends a call at once when nothing runs, and the calls made meanwhile together in the next group', async () => {
    const { groups, run } = recordingRun();
    const commit = createGroupCommit<number, number>({ concurrency: 1, maxWeight: 100, weight: () => 1, run });
    const first = commit.submit('a', 1);
    await tick();
    expect(groups.map((g) => g.inputs)).toEqual([[1]]);
    const later = [commit.submit('a', 2), commit.submit('a', 3), commit.submit('a', 4)];
    await tick();
    expect(groups).toHaveLength(1);
    groups[0]!.answer();
    expect(await first).toBe(10);
    await tick();
    expect(groups.map((g) => g.inputs)).toEqual([[1], [2, 3, 4]]);
    groups[1]!.answer();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('keeps keys apart, caps a group at maxWeight (a heavier call goes alone) and runs up to `concurrency` groups', async () => {
    const { groups, run } = recordingRun();
    const commit = createGroupCommit<number, number>({ concurrency: 2, maxWeight: 5, weight: (n) => n, run });
    const calls = [
      commit.submit('a', 1),
      commit.submit('b', 1),
      commit.submit('a', 1),
      commit.submit('a', 3),
      commit.submit('a', 2),
      commit.submit('a', 9),
    ];
    await tick();
    // Two groups of `a` may run: the second call of `a` goes at once too, alone.
    expect(groups.map((g) => [g.key, g.inputs])).toEqual([
      ['a', [1]],
      ['b', [1]],
      ['a', [1]],
    ]);
    groups[0]!.answer();
    await tick();
    expect(groups.map((g) => g.inputs).slice(3)).toEqual([[3, 2]]);
    groups[2]!.answer();
    await tick();
    expect(groups.map((g) => g.inputs).slice(4)).toEqual([[9]]);
    for (const g of groups.slice(1)) g.answer();
    expect(await Promise.all(calls)).toEqual([10, 10, 10, 30, 20, 90]);
  });

  it('answers each call with its own outcome, and fails every call of a group whose request throws', async () => {
    const { groups, run } = recordingRun();
    const commit = createGroupCommit<number, number>({ concurrency: 1, maxWeight: 100, weight: () => 1, run });
    const first = commit.submit('a', 1);
    const own = [commit.submit('a', 2), commit.submit('a', 3)];
    await tick();
    groups[0]!.answer();
    await first;
    await tick();
    groups[1]!.answer([
      { ok: false, error: new Error('refused: 2') },
      { ok: true, value: 33 },
    ]);
    await expect(own[0]).rejects.toThrow('refused: 2');
    expect(await own[1]).toBe(33);

    await tick();
    const alone = commit.submit('a', 4);
    const both = [commit.submit('a', 5), commit.submit('a', 6)];
    await tick();
    expect(groups.map((g) => g.inputs).slice(2)).toEqual([[4]]);
    groups[2]!.answer();
    expect(await alone).toBe(40);
    await tick();
    expect(groups.map((g) => g.inputs).slice(3)).toEqual([[5, 6]]);
    groups[3]!.fail(new Error('unreachable'));
    await expect(both[0]).rejects.toThrow('unreachable');
    await expect(both[1]).rejects.toThrow('unreachable');
    // The lane is free again afterwards.
    const after = commit.submit('a', 7);
    await tick();
    groups[4]!.answer();
    expect(await after).toBe(70);
  });
});
