// A call an "approve always" grant let through (`decision: 'remembered'`) says so, where a call says how it
// ended: the grant, who gave it, when, and on which approval — what the call's audit record holds
// (`grant`). A grant that did not say (stored by an older gateway) is named as a grant all the same.
import type { GrantGiven } from 'toolwire/gateway';
import { DeciderName } from './decider-name.js';
import { LocalTime } from './local-time.js';

export function GrantNote({ grant }: { grant: GrantGiven | undefined }) {
  return (
    <span class="grant-note">
      allowed by an “Approve always” grant
      {grant?.decidedBy !== undefined && (
        <>
          {' '}
          from <DeciderName by={grant.decidedBy} />
        </>
      )}
      {grant?.decidedAt !== undefined && (
        <>
          {' '}
          given <LocalTime iso={grant.decidedAt} />
        </>
      )}
      {grant?.approvalId !== undefined && (
        <>
          {' '}
          (approval <span title={grant.approvalId}>{grant.approvalId.slice(0, 8)}</span>)
        </>
      )}
    </span>
  );
}
