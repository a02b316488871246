import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { isPassingTemporalError } from '../../commands/temporal-waits';

const grpcError = (code: number) => Object.assign(new Error(`grpc ${code}`), { code, details: '', metadata: {} });

describe('isPassingTemporalError', () => {
  it('passes a server that is loaded, restarting or failing for the moment', () => {
    for (const code of [2, 8, 10, 13, 14]) {
      expect(isPassingTemporalError(new ServiceError('Failed to get Workflow execution history', { cause: grpcError(code) }))).toBe(true);
    }
  });

  it('does not pass refusals, missing workflows, deadlines or errors of another kind', () => {
    for (const code of [3, 4, 5, 7, 9, 16]) {
      expect(isPassingTemporalError(new ServiceError('refused', { cause: grpcError(code) }))).toBe(false);
    }
    expect(isPassingTemporalError(new ServiceError('no cause'))).toBe(false);
    expect(isPassingTemporalError(new WorkflowNotFoundError('gone', 'wf', undefined))).toBe(false);
    expect(isPassingTemporalError(grpcError(14))).toBe(false);
  });
});
