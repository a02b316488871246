/**
 * How a subscription's deliveries are signed (`signing`): the contract's X-Combo-Signature alone, or
 * the Standard Webhooks headers too, which consumers verify with a standardwebhooks library.
 */
import { type WebhookSigning, WebhookSigningValues } from '@combo/client';
import { useId } from 'react';

const LABELS: Record<WebhookSigning, string> = {
  combo: 'X-Combo-Signature',
  standard_webhooks: 'X-Combo-Signature and Standard Webhooks',
};

/** The headers that sign a subscription's deliveries, in a few words (for its page and the list). */
export const signingLabel = (signing: WebhookSigning): string => LABELS[signing] ?? signing;

export function SigningPicker({
  value,
  onChange,
  invalid,
}: {
  value: WebhookSigning;
  onChange: (next: WebhookSigning) => void;
  invalid: boolean;
}) {
  const id = useId();
  const helpId = useId();
  return (
    <div className="field wh-field-wide">
      <label htmlFor={id}>Signing</label>
      <select
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value as WebhookSigning)}
        aria-invalid={invalid}
        aria-describedby={helpId}
      >
        {WebhookSigningValues.map((signing) => (
          <option key={signing} value={signing}>
            {LABELS[signing]}
          </option>
        ))}
      </select>
      <p className="help" id={helpId}>
        Standard Webhooks adds <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>, which receivers
        check with a standardwebhooks library; its secret is <code>whsec_</code> + base64 (a secret of another form must be rotated first).
      </p>
    </div>
  );
}
