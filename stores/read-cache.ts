/**
 * A small time-bounded cache for hot, tenant-scoped reads (list pages). The process that writes
 * invalidates the tenant at once; other API processes see the change within `ttlMs` plus one
 * database read, because an expired entry is still served while its reload runs. ttlMs 0 turns it off.
 */
export function createReadCache<T>(ttlMs: number, maxEntries = 10_000) {
  interface Entry {
    value: Promise<T>;
    until: number;
    reloading?: boolean;
  }
  const entries = new Map<string, Entry>();
  const tenantOf = (key: string) => key.slice(0, key.indexOf('|'));

  return {
    /** `key` must start with `<tenant>|`. Concurrent misses share one load. */
    get(key: string, load: () => Promise<T>): Promise<T> {
      if (ttlMs <= 0) return load();
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.until > now) return hit.value;
      if (hit && !hit.reloading) {
        hit.reloading = true;
        load().then(
          (fresh) => {
            if (entries.get(key) === hit) entries.set(key, { value: Promise.resolve(fresh), until: Date.now() + ttlMs });
          },
          () => entries.delete(key),
        );
      }
      if (hit) return hit.value;
      if (entries.size >= maxEntries) entries.clear();
      const value = load();
      entries.set(key, { value, until: now + ttlMs });
      value.catch(() => entries.delete(key));
      return value;
    },
    invalidateTenant(tenantId: string): void {
      for (const key of entries.keys()) if (tenantOf(key) === tenantId) entries.delete(key);
    },
  };
}
