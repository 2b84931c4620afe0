// Audit: the gateway's records, newest first, a page at a time, in the order they were recorded — one per
// call, written as it ends (who, which tool, the arguments' digest, the decision and who took it, the
// outcome), and one per approval decision, written as it is taken. A call's row and its decision's name the
// same call and approval (their short ids), so one is found from the other. The time recorded comes first
// (a call's: when it ended, its arrival plus its duration), then when the call started: records read in
// order, though a call that waited for a decision started before it. A time has its date when it is not
// today's (LocalTime).
import { useState } from 'preact/hooks';
import type { GatewayAuditRecord } from '../api.js';
import { callerName } from '../components/badges.js';
import { DeciderName } from '../components/decider-name.js';
import { GrantNote } from '../components/grant-note.js';
import { LocalTime } from '../components/local-time.js';
import { useLive } from '../live.js';

const PAGE = 50;

/**
 * When `record` was recorded: a decision's time; a call's end (its arrival plus its duration), when known —
 * rounded up to the millisecond, as its arrival was stamped rounded down, so that it is not before the
 * decision it waited for.
 */
function recordedAt(record: GatewayAuditRecord): string | undefined {
  if (record.kind === 'decision') return record.time;
  if (record.durationMs === undefined) return undefined;
  const ms = Math.ceil(Date.parse(record.time) + record.durationMs);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function Audit() {
  const { audit } = useLive();
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(audit.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = audit.slice(current * PAGE, (current + 1) * PAGE);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit</h2>
      <p class="muted" id="audit-order">
        Newest first, as recorded: a call when it ends, a decision when it is taken. A call and its decision
        have the same call and approval ids.
      </p>
      {audit.length === 0 && <p class="empty">No record yet.</p>}
      {/* Wider than a phone: the table scrolls in its own box (by keyboard too), not the whole page. */}
      <div
        class="table-scroll"
        role="region"
        aria-label="audit records"
        aria-describedby="audit-order"
        tabIndex={0}
      >
        <table class="audit">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">recorded</th>
              <th scope="col">kind</th>
              <th scope="col">call</th>
              <th scope="col">approval</th>
              <th scope="col">started</th>
              <th scope="col">caller</th>
              <th scope="col">tool</th>
              <th scope="col">decision</th>
              <th scope="col">by</th>
              <th scope="col">outcome</th>
              <th scope="col">reason</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => {
              const recorded = recordedAt(r);
              return (
                <tr key={r.seq}>
                  <td>{r.seq}</td>
                  <td>{recorded !== undefined && <LocalTime iso={recorded} />}</td>
                  <td>{r.kind}</td>
                  <td>{r.callId === undefined ? '' : `#${r.callId}`}</td>
                  <td>
                    {r.approvalId !== undefined && (
                      <span title={r.approvalId}>{r.approvalId.slice(0, 8)}</span>
                    )}
                  </td>
                  <td>{r.kind === 'call' && <LocalTime iso={r.time} />}</td>
                  <td>{callerName(r.caller)}</td>
                  <td>
                    {r.upstream}.{r.tool}
                  </td>
                  <td>
                    {r.decision}
                    {r.decision === 'remembered' && (
                      <>
                        : <GrantNote grant={r.grant} />
                      </>
                    )}
                  </td>
                  <td>
                    <DeciderName by={r.decidedBy} />
                  </td>
                  <td>{r.outcome ?? ''}</td>
                  <td>{r.reason ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="audit pages">
        <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Newer
        </button>
        <span>
          page {current + 1} of {pages}
        </span>
        <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
          Older
        </button>
      </nav>
    </section>
  );
}
