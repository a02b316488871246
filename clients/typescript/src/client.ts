/** The client: `new Combo({ baseURL, apiKey })` and its resources (`client.agents`, `client.webhooks.subscriptions`, ...). */
import type { ClientOptions } from './core';
import { ComboBase } from './generated/resources';
import { Completions } from './resources/completions';
import { Documents } from './resources/documents';
import { Inbound } from './resources/inbound';
import { Runs } from './resources/runs';

export class Combo extends ComboBase {
  /**
   * `baseURL` (with or without `/v1`) and `apiKey` default to COMBO_BASE_URL and COMBO_API_KEY when the
   * environment has them (Node, Deno, Bun).
   */
  constructor(options: ClientOptions = {}) {
    super(options, { Completions, Runs, Inbound, Documents });
  }
}
