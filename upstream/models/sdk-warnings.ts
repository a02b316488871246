import type { Logger } from '../../common/logger';

/**
 * The AI SDK reports what a provider ignored or adapted (a temperature a model does not take, an
 * unknown model's output limit) on the console by default. This process's log gets them instead,
 * once per distinct warning, as they repeat on every call of a misconfigured agent.
 */
export function logModelWarnings(log: Logger): void {
  const seen = new Set<string>();
  globalThis.AI_SDK_LOG_WARNINGS = ({ warnings, provider, model }) => {
    for (const warning of warnings) {
      const key = `${provider}\u0000${model}\u0000${JSON.stringify(warning)}`;
      if (seen.has(key) || seen.size >= 1_000) continue;
      seen.add(key);
      log.warn('the model provider adapted a call', { provider, model, warning });
    }
  };
}
