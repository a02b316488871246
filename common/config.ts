import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseAllowedPrivateHost } from './net/private-hosts';
import { allTaskQueues, TASK_QUEUE_GROUPS } from './task-queues';

/**
 * All configuration comes from environment variables, parsed once at each entry point.
 * Secrets have no defaults; external addresses are required so nothing silently talks to
 * the wrong backend.
 */
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An optional number; an empty value (as docker compose passes an unset variable) counts as unset. */
const optionalNumber = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.coerce.number().pipe(schema).optional());
/** Worker slots of one kind on one task queue (the Temporal SDK's own limits are 40 workflow tasks, 100 activities). */
const slots = (fallback: number) => z.coerce.number().int().min(1).max(10_000).default(fallback);
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** Private hosts a kind of outgoing call may reach although ALLOW_PRIVATE_URLS is off: `host`, `host:port`, `[ipv6]:port`, comma-separated. */
const privateHostList = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== ''),
  )
  .pipe(z.array(z.string().refine((e) => parseAllowedPrivateHost(e) !== null, 'each entry must be a host or host:port')).max(100));

function isOrigin(value: string): boolean {
  try {
    return /^https?:$/.test(new URL(value).protocol) && new URL(value).origin === value;
  } catch {
    return false;
  }
}

type TemporalTlsSettings = Partial<
  Record<
    'TEMPORAL_TLS_CLIENT_CERT_PATH' | 'TEMPORAL_TLS_SERVER_CA_CERT_PATH' | 'TEMPORAL_TLS_SERVER_NAME' | 'TEMPORAL_API_KEY',
    string | undefined
  >
>;

/** A certificate, a CA, a server name or an API key: Temporal is reached over TLS. */
const temporalTlsAsked = (c: TemporalTlsSettings): boolean =>
  Boolean(c.TEMPORAL_TLS_CLIENT_CERT_PATH || c.TEMPORAL_TLS_SERVER_CA_CERT_PATH || c.TEMPORAL_TLS_SERVER_NAME || c.TEMPORAL_API_KEY);

export const configSchema = z
  .object({
    API_HOST: z.string().default('0.0.0.0'),
    API_PORT: z.coerce.number().int().min(0).max(65535).default(9380),
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI'),
    MONGODB_DB: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be a plain database name')
      .default('combo'),
    ELASTICSEARCH_URL: z.url({ protocol: /^https?$/ }),
    ELASTICSEARCH_INDEX_PREFIX: z
      .string()
      .regex(/^[a-z0-9_-]{1,40}$/)
      .default('combo'),
    TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    /** The interactive task queue (completions, approvals, agent tasks, maintenance); see common/task-queues.ts. */
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('combo'),
    /**
     * TLS to Temporal. Unset: on when any TEMPORAL_TLS_* file, TEMPORAL_TLS_SERVER_NAME or TEMPORAL_API_KEY
     * is set (a cluster or Temporal Cloud), off otherwise (the local dev server). The names are
     * Temporal's own (its CLI and environment configuration read the same variables).
     */
    TEMPORAL_TLS: optionalText.pipe(z.enum(['true', 'false']).optional()),
    /** mTLS: the client certificate (PEM file) this process presents, with its key. */
    TEMPORAL_TLS_CLIENT_CERT_PATH: optionalText,
    TEMPORAL_TLS_CLIENT_KEY_PATH: optionalText,
    /** The CA (PEM file) that signed the server's certificate; unset: the system's trusted CAs. */
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: optionalText,
    /** The name the server's certificate must carry, when it is not the host of TEMPORAL_ADDRESS. */
    TEMPORAL_TLS_SERVER_NAME: optionalText,
    /** An API key (Temporal Cloud), sent as `Authorization: Bearer`; implies TLS. */
    TEMPORAL_API_KEY: optionalText,
    /** Elasticsearch API key (the base64 `encoded` value Elasticsearch returns); not with a user name. */
    ELASTICSEARCH_API_KEY: optionalText,
    /** Basic authentication, both or neither. */
    ELASTICSEARCH_USERNAME: optionalText,
    ELASTICSEARCH_PASSWORD: optionalText,
    /** The CA (PEM file) that signed an https ELASTICSEARCH_URL's certificate; unset: the system's trusted CAs. */
    ELASTICSEARCH_CA_CERT_PATH: optionalText,
    /** Document parsing's task queue; unset: TEMPORAL_TASK_QUEUE followed by `-ingest`. */
    TEMPORAL_INGEST_TASK_QUEUE: optionalText,
    /** Webhook deliveries' and replays' task queue; unset: TEMPORAL_TASK_QUEUE followed by `-deliveries`. */
    TEMPORAL_DELIVERY_TASK_QUEUE: optionalText,
    /**
     * The task queues a worker process polls, by group, comma-separated: `interactive`, `ingest`,
     * `deliveries` (default all three). Some worker process must poll each.
     */
    WORKER_TASK_QUEUES: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
      z
        .string()
        .default(TASK_QUEUE_GROUPS.join(','))
        .transform((v) => [...new Set(v.split(',').map((g) => g.trim()))].filter((g) => g !== ''))
        .pipe(z.array(z.enum(TASK_QUEUE_GROUPS, 'must list interactive, ingest or deliveries, comma-separated')).min(1)),
    ),
    /** Each queue's worker slots: workflow tasks, and activities (local activities apart, as many), a worker runs at once. */
    WORKER_INTERACTIVE_MAX_WORKFLOW_TASKS: slots(40),
    WORKER_INTERACTIVE_MAX_ACTIVITY_TASKS: slots(100),
    WORKER_INGEST_MAX_WORKFLOW_TASKS: slots(40),
    WORKER_INGEST_MAX_ACTIVITY_TASKS: slots(100),
    WORKER_DELIVERIES_MAX_WORKFLOW_TASKS: slots(40),
    WORKER_DELIVERIES_MAX_ACTIVITY_TASKS: slots(100),
    /** HS256 secret for console JWTs (at least 32 bytes). */
    JWT_SECRET: optionalText.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** SPKI PEM public key for RS256/ES256 console JWTs; used instead of JWT_SECRET when set. */
    JWT_PUBLIC_KEY: optionalText,
    JWT_ISSUER: optionalText,
    JWT_AUDIENCE: optionalText,
    /** A console token without `exp` would be valid forever once leaked: refused unless this is false. */
    JWT_REQUIRE_EXP: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** Longest accepted console-token lifetime, `exp` minus `iat` (or minus now when `iat` is absent or in the future). */
    JWT_MAX_LIFETIME_S: z.coerce.number().int().min(60).max(31_536_000).default(86_400),
    /**
     * Signs the console's own tokens (POST /v1/auth/console-token), HS256, 32 bytes or more, base64.
     * Unset: the service generates one at first start and keeps it encrypted with SECRETS_ENCRYPTION_KEY.
     * Independent of JWT_SECRET / JWT_PUBLIC_KEY, which verify an identity provider's tokens.
     */
    CONSOLE_TOKEN_SIGNING_KEY: optionalText.pipe(
      z
        .string()
        .refine((v) => Buffer.from(v, 'base64').length >= 32, 'must be at least 32 bytes, base64-encoded')
        .optional(),
    ),
    /** Lifetime of a console token; the console renews it before it ends. */
    CONSOLE_TOKEN_TTL_S: z.coerce.number().int().min(60).max(86_400).default(900),
    /** The Temporal UI's address (e.g. http://127.0.0.1:8233); runs then link to their workflows there. */
    TEMPORAL_UI_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    /** An API key that is guaranteed to exist (admin of BOOTSTRAP_TENANT_ID) for a new installation. */
    BOOTSTRAP_API_KEY: optionalText.pipe(
      z
        .string()
        .regex(/^combo_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/, 'must look like combo_<8 chars>_<32 chars>')
        .optional(),
    ),
    BOOTSTRAP_TENANT_ID: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .default('default'),
    /** 32 random bytes, base64: encrypts stored secrets that must be used again (webhook signing keys). */
    SECRETS_ENCRYPTION_KEY: z.string().refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
    /**
     * Encrypts every payload Temporal stores (common/payload-codec.ts): comma-separated `<key id>:<32
     * random bytes, base64>`, the first encrypting, all decrypting (a new key goes first; old ones stay
     * while histories need them). Unset: payloads are stored as they are.
     */
    TEMPORAL_PAYLOAD_KEYS: z
      .string()
      .default('')
      .transform((v, ctx) => {
        // Kept as `<id>:<base64>` entries (a built process's environment is this list joined again).
        const entries = v
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '');
        const ids = entries.map((entry) => entry.split(':')[0] ?? '');
        const bad = entries.find((entry) => {
          const [id = '', key = '', extra] = entry.split(':');
          return extra !== undefined || !/^[A-Za-z0-9_.-]{1,64}$/.test(id) || Buffer.from(key, 'base64').length !== 32;
        });
        if (bad !== undefined)
          ctx.addIssue({
            code: 'custom',
            message: `each entry must be <id>:<32 bytes, base64> (${bad.split(':')[0] || 'an entry'} is not)`,
          });
        if (new Set(ids).size !== ids.length) ctx.addIssue({ code: 'custom', message: 'key ids must differ' });
        return entries;
      }),
    /** Lets webhook URLs and tool calls reach loopback and private addresses (tests, closed networks). */
    ALLOW_PRIVATE_URLS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /**
     * Private hosts a tenant's model providers may reach although ALLOW_PRIVATE_URLS is off (a local
     * Ollama): comma-separated `host` (any port) or `host:port` entries, `[ipv6]:port` for IPv6.
     */
    MODEL_PROVIDER_PRIVATE_HOSTS: privateHostList,
    /**
     * Private hosts agents' MCP servers may reach although ALLOW_PRIVATE_URLS is off (an MCP server
     * beside the service): the same forms as MODEL_PROVIDER_PRIVATE_HOSTS.
     */
    MCP_PRIVATE_HOSTS: privateHostList,
    /** How long a worker reuses an MCP server's tool list (tools/list) before it asks the server again. */
    MCP_TOOLS_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
    /** Browser origins (`scheme://host[:port]`, comma-separated) allowed to call the API; none by default. */
    CORS_ORIGINS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o !== ''),
      )
      .pipe(z.array(z.string().refine(isOrigin, 'each entry must be an origin such as https://console.example.com (no path)')).max(100)),
    /** How often the worker looks for newly recorded events to deliver. */
    WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(200),
    /**
     * How long a delivery claimed by a dispatcher's batch may go without its first attempt recorded
     * before another dispatcher hands it to its workflow (the claimer died mid-batch). The batch itself
     * starts no attempt later than 5 s before that and hands what it has not attempted to the workflows.
     */
    WEBHOOK_BATCH_TAKEOVER_MS: z.coerce.number().int().min(10_000).max(3_600_000).default(120_000),
    /**
     * FOR TESTS ONLY: the four waits between outbound delivery attempts, in milliseconds, comma-separated
     * (e.g. `200,200,200,200`). Unset (always in production): the contract's 30 s, 2 min, 10 min, 1 h.
     */
    WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS: optionalText.pipe(
      z
        .string()
        .regex(/^\s*\d+\s*(,\s*\d+\s*){3}$/, 'must be four whole numbers of milliseconds, comma-separated')
        .transform((v) => v.split(',').map((d) => Number(d.trim())))
        .pipe(z.array(z.number().int().min(1).max(3_600_000)))
        .optional(),
    ),
    /** How long a verified API key is trusted before it is looked up again (revocation delay). */
    AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
    RATE_LIMIT_COMPLETIONS_PER_MIN: positiveInt(60),
    RATE_LIMIT_UPLOADS_PER_MIN: positiveInt(10),
    RATE_LIMIT_DEFAULT_PER_MIN: positiveInt(300),
    /**
     * Inbound webhook calls per minute: signed calls per integration (per trigger on the generic
     * channel); refused calls (bad signature, ...) separately, per integration and client address.
     */
    RATE_LIMIT_INBOUND_PER_MIN: positiveInt(600),
    /**
     * Reverse proxies in front of the API, each appending the address it saw to X-Forwarded-For.
     * 0: the header is not trusted and the client address is the connection's peer.
     */
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /** How far an inbound webhook's X-Combo-Timestamp may be from the server's clock, in seconds. */
    INBOUND_TIMESTAMP_TOLERANCE_S: z.coerce.number().int().min(1).max(86_400).default(300),
    /**
     * Days a received inbound event (and its id, which refuses replays) is kept. A replayed request
     * older than the timestamp tolerance is refused by its timestamp anyway.
     */
    INBOUND_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
    /**
     * Days a delivered webhook delivery is kept (from its creation) before maintenance deletes it; 0
     * keeps them all. Fractions allowed (seconds, in tests). Deliveries still being attempted are kept.
     */
    WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().min(0).max(3650).default(0),
    /** Days a dead letter is kept (from its delivery's creation); 0 keeps them all. */
    WEBHOOK_DEAD_LETTER_RETENTION_DAYS: z.coerce.number().min(0).max(3650).default(0),
    /** Days an event of the log (GET /v1/events, time-range replays) is kept; 0 keeps them all. */
    EVENT_RETENTION_DAYS: z.coerce.number().min(0).max(3650).default(0),
    /** How often an API process shares its rate counts (publishes its own, re-reads the others'; docs/configuration.md states the bound); 0: on every request. */
    RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(0).max(10_000).default(250),
    /**
     * How long a list page may be served from an API process's memory. The process that writes sees
     * its change at once; other processes within this many milliseconds. 0 turns the cache off.
     */
    LIST_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
    /** Largest JSON request body accepted, in bytes. */
    MAX_JSON_BODY_BYTES: positiveInt(1024 * 1024),
    /**
     * Workflows a worker keeps in memory between tasks. Bounds the worker's memory under a burst of
     * deliveries; a workflow pushed out is replayed from its (short) history on its next task.
     */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(500),
    /** Largest uploaded document, in bytes (POST /v1/document); larger uploads answer 10001 and store nothing. */
    MAX_UPLOAD_BYTES: positiveInt(50 * 1024 * 1024),
    /**
     * Embedding model of new knowledge bases: `local` (all-MiniLM-L6-v2, 384 dimensions, runs in
     * process, installed by stack/install.sh) or `openai` (any OpenAI-compatible /embeddings server).
     */
    EMBEDDING_PROVIDER: z.enum(['local', 'openai']).default('local'),
    /** Folder holding the local model's ONNX file and tokenizer; default `.stack/models/all-minilm-l6-v2`. */
    EMBEDDING_MODEL_DIR: optionalText,
    /**
     * Threads the local model computes on, per process; 0: one fewer than the machine's cores (at
     * least 1, at most 8), so a bulk ingest leaves a core to the worker's interactive work.
     */
    EMBEDDING_LOCAL_THREADS: z.coerce.number().int().min(0).max(64).default(0),
    /** OpenAI-compatible base URL (e.g. https://api.openai.com/v1); enables the `openai:` models. */
    EMBEDDING_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    EMBEDDING_API_KEY: optionalText,
    EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
    /** Expected vector size of EMBEDDING_MODEL; checked against every answer. Unset: learnt from the first answer. */
    EMBEDDING_DIMENSION: z.coerce.number().int().min(1).max(4096).optional(),
    /** Chunks embedded and indexed per activity while parsing a document. */
    INGEST_BATCH_SIZE: z.coerce.number().int().min(1).max(512).default(64),
    /** Threads of a worker that extract and split uploads (default: the machine's cores, at most 4). */
    PARSE_THREADS: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(Math.max(1, Math.min(4, availableParallelism()))),
    /** An upload whose extraction and splitting take longer than this fails as `corrupt`. */
    PARSE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(7_200_000).default(600_000),
    /** POST /v1/files extracts while the client waits: a file still being read after this long is refused (10001, `corrupt`). */
    FILE_PARSE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(120_000),
    /** Heap of each parsing thread (worker and API); a file that needs more fails as `too_large` and the thread is replaced. */
    PARSE_THREAD_MEMORY_MB: z.coerce.number().int().min(64).max(16_384).default(1_024),
    /** A DOCX or XLSX whose parts add up to more than this unpacked is refused as `too_large` before it is unpacked. */
    ZIP_MAX_UNCOMPRESSED_BYTES: positiveInt(100 * 1024 * 1024),
    /** ... and so is one with a part over 1 MiB unpacked that is compressed more than this many to one (a zip bomb). */
    ZIP_MAX_COMPRESSION_RATIO: z.coerce.number().int().min(2).max(100_000).default(100),
    /** `local` (no network, see docs/api/knowledge.md), `http` (Cohere/Jina-style /rerank at RERANK_BASE_URL) or `none`. */
    RERANK_PROVIDER: z.enum(['local', 'http', 'none']).default('local'),
    RERANK_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    RERANK_API_KEY: optionalText,
    RERANK_MODEL: z.string().min(1).default('rerank-v3.5'),
    /**
     * OpenAI-compatible chat completions server (OpenAI, Ollama, vLLM, LM Studio, ...), e.g.
     * https://api.openai.com/v1. Unset: no model is configured and completions answer in the
     * offline mode (quoted knowledge-base passages, saying that no model was used).
     */
    LLM_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    LLM_API_KEY: optionalText,
    /** Default model of agents that name none. */
    LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
    LLM_TEMPERATURE: optionalNumber(z.number().min(0).max(2)),
    /** Default ceiling on tokens generated per model call (agents may set their own). */
    LLM_MAX_TOKENS: optionalNumber(z.number().int().min(1).max(128_000)),
    /** One model call, connection to last byte. */
    LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
    /** Attempts per model call on 5xx, 429, network errors and timeouts (4xx is never retried). */
    LLM_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
    /**
     * Prices of LLM_MODEL per million input (prompt) and output (generated) tokens, in the currency
     * cost reports use; runs of that model on the default provider then record `cost.amount`. Unset:
     * no price (one set alone prices that side only).
     */
    LLM_INPUT_PRICE_PER_MILLION: optionalNumber(z.number().min(0)),
    LLM_OUTPUT_PRICE_PER_MILLION: optionalNumber(z.number().min(0)),
    /** Model calls per completion (each answer or round of tool calls is one step). */
    COMPLETION_MAX_STEPS: z.coerce.number().int().min(1).max(50).default(8),
    /** Tokens (prompt + generated, all steps) one completion may spend before it stops. */
    COMPLETION_MAX_TOKENS: z.coerce.number().int().min(100).max(2_000_000).default(60_000),
    /** The longest a completion runs (its workflow's own timer); then it fails and records why. */
    COMPLETION_RUN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
    /** The longest a document is parsed (its workflow's own timer); then it fails as `timed_out`, its parse cancelled. */
    DOCUMENT_INGEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(7_200_000),
    /** The longest a historical webhook replay runs, all its continued runs together; then it fails and says why. */
    WEBHOOK_REPLAY_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .max(7 * 86_400_000)
      .default(21_600_000),
    /**
     * After SIGTERM, how long the worker lets running activities finish before it cancels them (Temporal's
     * shutdownGraceTime); a cancelled attempt is retried on another worker. 0: cancelled at once.
     */
    WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(0),
    /** Port of the worker's health endpoint (GET /live, GET /ready) for an orchestrator's probes; unset: none. */
    WORKER_HEALTH_PORT: optionalNumber(z.number().int().min(0).max(65535)),
    WORKER_HEALTH_HOST: z.string().default('0.0.0.0'),
    /** /v1/ready counts a worker as polling the task queue until this long after its last poll (long polls last up to a minute). */
    WORKER_POLL_STALE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(90_000),
    /** The longest a JSON completion request waits for its answer; then HTTP 202 with the run to follow. */
    COMPLETION_REPLY_WAIT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
    /** Earlier session messages given to the model: at most this many, newest first ... */
    HISTORY_MAX_MESSAGES: z.coerce.number().int().min(0).max(200).default(20),
    /** ... and at most this many characters of them. */
    HISTORY_MAX_CHARS: z.coerce.number().int().min(0).max(1_000_000).default(24_000),
    /** Characters of attachment text put before the model per completion. */
    ATTACHMENT_MAX_CHARS: z.coerce.number().int().min(0).max(1_000_000).default(48_000),
    /** How often the worker adds finished runs' queued costs to their tenants' totals. */
    COST_AGGREGATE_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
    /** Default per-tenant cost threshold in tokens per period (cost.threshold_exceeded); unset: none. */
    COST_THRESHOLD_TOKENS: optionalNumber(z.number().int().min(1)),
    /** Default per-tenant cost threshold in money per period (the prices' currency; cost.threshold_exceeded, unit `amount`); unset: none. */
    COST_THRESHOLD_AMOUNT: optionalNumber(z.number().positive()),
    /**
     * How often an API process looks whether the runs its streams follow have new events: one query
     * for all of them (each run's head), whatever their number. Adds up to this much to an event's
     * delay; a stream's first event is read at once.
     */
    STREAM_POLL_MS: z.coerce.number().int().min(1).max(1_000).default(100),
    /** Keep-alive comment interval on an idle stream. */
    STREAM_KEEPALIVE_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Hours a stream's events are kept for reconnecting clients. */
    STREAM_RETENTION_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(24),
    /**
     * How long an Idempotency-Key is remembered, from its first request: within it the same key and
     * request answer the first response again. Fractions allowed (a window of seconds, in tests).
     */
    IDEMPOTENCY_KEY_TTL_HOURS: z.coerce
      .number()
      .min(1 / 3600, 'must be at least one second (0.000278 hours)')
      .max(24 * 30)
      .default(24),
    /** The address clients reach the API at; used in links the service sends out (report_url). */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:9380'),
    /** A workflow bundle built by `npm run build:bundle` (production images); unset: bundle at start. */
    WORKFLOW_BUNDLE_PATH: optionalText,
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  })
  .refine((c) => !c.TEMPORAL_TLS_CLIENT_CERT_PATH === !c.TEMPORAL_TLS_CLIENT_KEY_PATH, {
    path: ['TEMPORAL_TLS_CLIENT_KEY_PATH'],
    message: 'set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH together',
  })
  .refine((c) => c.TEMPORAL_TLS !== 'false' || !temporalTlsAsked(c), {
    path: ['TEMPORAL_TLS'],
    message: 'is false, but a TEMPORAL_TLS_* setting or TEMPORAL_API_KEY asks for TLS',
  })
  .refine((c) => !c.ELASTICSEARCH_USERNAME === !c.ELASTICSEARCH_PASSWORD, {
    path: ['ELASTICSEARCH_PASSWORD'],
    message: 'set ELASTICSEARCH_USERNAME and ELASTICSEARCH_PASSWORD together',
  })
  .refine((c) => !(c.ELASTICSEARCH_API_KEY && c.ELASTICSEARCH_USERNAME), {
    path: ['ELASTICSEARCH_API_KEY'],
    message: 'set ELASTICSEARCH_API_KEY or ELASTICSEARCH_USERNAME/PASSWORD, not both',
  })
  .refine((c) => !c.ELASTICSEARCH_CA_CERT_PATH || c.ELASTICSEARCH_URL.startsWith('https:'), {
    path: ['ELASTICSEARCH_CA_CERT_PATH'],
    message: 'needs an https:// ELASTICSEARCH_URL',
  })
  .refine((c) => new Set(allTaskQueues(c)).size === allTaskQueues(c).length, {
    path: ['TEMPORAL_INGEST_TASK_QUEUE'],
    message: 'TEMPORAL_TASK_QUEUE, TEMPORAL_INGEST_TASK_QUEUE and TEMPORAL_DELIVERY_TASK_QUEUE must be three different queues',
  })
  .refine((c) => !(c.JWT_SECRET && c.JWT_PUBLIC_KEY), {
    path: ['JWT_PUBLIC_KEY'],
    message: 'set JWT_SECRET or JWT_PUBLIC_KEY, not both',
  })
  .refine((c) => c.EMBEDDING_PROVIDER !== 'openai' || c.EMBEDDING_BASE_URL, {
    path: ['EMBEDDING_BASE_URL'],
    message: 'is required when EMBEDDING_PROVIDER=openai',
  })
  .refine((c) => c.RERANK_PROVIDER !== 'http' || c.RERANK_BASE_URL, {
    path: ['RERANK_BASE_URL'],
    message: 'is required when RERANK_PROVIDER=http',
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; the error message is one line naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return Object.freeze(result.data);
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0] ?? 'environment');
  const problem = env[name] === undefined && issue.code === 'invalid_type' ? 'is required but not set' : issue.message;
  throw new ConfigError(`configuration error: ${name} ${problem}`);
}

/** Entry points call this: a bad configuration stops the process with one clear line. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
