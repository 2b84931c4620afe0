// Audit: the gateway's records, newest first, a page at a time — one per call (who, which tool, the
// arguments' digest, the decision and who took it, the outcome, the time) and one per approval decision. A
// record's time has its date when it is not today's (LocalTime).
import { useState } from 'preact/hooks';
import { callerName } from '../components/badges.js';
import { LocalTime } from '../components/local-time.js';
import { useLive } from '../live.js';

const PAGE = 50;

export function Audit() {
  const { audit } = useLive();
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(audit.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = audit.slice(current * PAGE, (current + 1) * PAGE);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit</h2>
      {audit.length === 0 && <p class="empty">No record yet.</p>}
      {/* Wider than a phone: the table scrolls in its own box (by keyboard too), not the whole page. */}
      <div class="table-scroll" role="region" aria-label="audit records" tabIndex={0}>
        <table class="audit">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">time</th>
              <th scope="col">kind</th>
              <th scope="col">caller</th>
              <th scope="col">tool</th>
              <th scope="col">decision</th>
              <th scope="col">by</th>
              <th scope="col">outcome</th>
              <th scope="col">reason</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.seq}>
                <td>{r.seq}</td>
                <td>
                  <LocalTime iso={r.time} />
                </td>
                <td>{r.kind}</td>
                <td>{callerName(r.caller)}</td>
                <td>
                  {r.upstream}.{r.tool}
                </td>
                <td>{r.decision}</td>
                <td>{r.decidedBy}</td>
                <td>{r.outcome ?? ''}</td>
                <td>{r.reason ?? ''}</td>
              </tr>
            ))}
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
