/**
 * @combo/client: the official TypeScript/JavaScript client of the Combo agent orchestration service.
 *
 *   import { Combo } from '@combo/client';
 *   const client = new Combo({ baseURL: 'http://127.0.0.1:9380', apiKey: 'combo_...' });
 */
export { Combo } from './client';
export {
  APIPromise,
  APIResponse,
  ComboCore,
  DEFAULT_BASE_URL,
  Page,
  PagePromise,
  VERSION,
  type ClientOptions,
  type RateLimit,
  type RequestOptions,
  type UploadOptions,
  type WithResponse,
} from './core';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  ComboError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UpstreamModelError,
  UpstreamTimeoutError,
  ValidationError,
  WebhookVerificationError,
} from './errors';
export { CompletionStream, type StreamEvent, type StreamResult, type UnknownStreamEvent } from './streaming';
export { toFile, type Uploadable, type UploadProgress } from './uploads';
export { signWebhook, verifyWebhook, type SignWebhookParams, type VerifyWebhookOptions, type WebhookEvent } from './webhooks';
export {
  Completions,
  type CompletionCreateParams,
  type CompletionCreateResult,
  type CompletionStreamParams,
} from './resources/completions';
export { Documents, type DocumentWaitOptions } from './resources/documents';
export { Inbound, type InboundSendOptions } from './resources/inbound';
export { Runs, type RunEventsParams } from './resources/runs';
export * from './generated/resources';
export * from './generated/models';
