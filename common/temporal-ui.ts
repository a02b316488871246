/**
 * Where an operator sees a run in the Temporal UI: the workflow list filtered by the run's TraceId
 * search attribute, which finds its completion workflow and whatever else the trace started.
 */
export function temporalUiRunLink(uiBaseUrl: string, namespace: string, traceId: string): string {
  const base = uiBaseUrl.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(`TraceId="${traceId}"`)}`;
}
