/** A failed call as the API answered it: its message, and its code, `data.field` and trace id. */
import type { ReactNode } from 'react';
import { errorDetails } from '../api/errors';

interface ErrorBannerProps {
  error: unknown;
  /** What failed, in the user's words ("Could not create the key"). */
  title?: string;
  onRetry?: () => void;
}

export function ErrorBanner({ error, title = 'The request failed', onRetry }: ErrorBannerProps) {
  const details = errorDetails(error);
  return (
    <div className="banner banner-error" role="alert">
      <p className="banner-title">{title}</p>
      <p className="banner-message">{details.message}</p>
      {(details.code !== undefined || details.field || details.traceId) && (
        <dl className="banner-facts">
          {details.code !== undefined && (
            <div>
              <dt>Code</dt>
              <dd>
                <code>{details.code}</code>
              </dd>
            </div>
          )}
          {details.field && (
            <div>
              <dt>Field</dt>
              <dd>
                <code>{details.field}</code>
              </dd>
            </div>
          )}
          {details.traceId && (
            <div>
              <dt>Trace id</dt>
              <dd>
                <code>{details.traceId}</code>
              </dd>
            </div>
          )}
        </dl>
      )}
      {onRetry && (
        <button type="button" className="button button-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A notice that is not an error (a session that ended, a hint). */
export function InfoBanner({ children }: { children: ReactNode }) {
  return (
    <div className="banner banner-info" role="status">
      {children}
    </div>
  );
}
