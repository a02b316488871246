/**
 * A promise started now and awaited later, after other work: until then its rejection counts as
 * handled, so an early failure surfaces where it is awaited instead of as an unhandled rejection.
 */
export function startedEarly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
