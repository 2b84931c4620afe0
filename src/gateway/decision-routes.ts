/**
 * The decision API's own endpoints, beside the console's (console-routes.ts): its index, the approvals
 * (listed, read, approved or denied), the latest audit records, the upstreams' status and the event
 * stream. 404 for a path that is none of them, 405 for a method an endpoint does not take.
 * @module
 */
import { failure, json } from './api-json.js';
import type { ApprovalDecision } from './approvals.js';
import { integerParam, type RouteContext } from './console-routes.js';
import type { Gateway } from './gateway.js';
import { approvalsListing, approvalsPage, listedApproval } from './approvals-listing.js';
import { MAX_GRANT_MS } from '../stores/grant-store.js';

/** The answer to a decision endpoint; `events` opens the request's event stream. */
export async function decisionRoute(
  gateway: Gateway,
  { request, url, parts, caller, body: readBody }: RouteContext,
  events: () => Promise<Response>,
): Promise<Response> {
  const [first, id, action, ...extra] = parts;
  const method = request.method;
  const only = (allowed: string) =>
    failure(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed}`, { allow: allowed });
  if (extra.length > 0) return failure(404, 'NOT_FOUND', `No ${url.pathname}`);
  const approvals = gateway.approvals;
  switch (first) {
    case undefined:
      if (method !== 'GET') return only('GET');
      return json(200, {
        name: 'toolwire gateway decision API',
        endpoints: [
          'approvals',
          'audit',
          'upstreams',
          'events',
          'tools',
          'calls',
          'resources',
          'session',
          'sign-in',
        ],
      });
    case 'approvals': {
      if (id === undefined) {
        if (method !== 'GET') return only('GET');
        const limit = integerParam(url, 'limit');
        const page = limit instanceof Error ? limit : approvalsPage(limit, url.searchParams.get('cursor'));
        if (page instanceof Error) return failure(400, 'INVALID_REQUEST', page.message);
        return json(200, approvalsListing(await approvals.listPending(page), page.after === undefined));
      }
      if (action === undefined) {
        if (method !== 'GET') return only('GET');
        const found = await approvals.get(id);
        return found ? json(200, found) : failure(404, 'APPROVAL_NOT_FOUND', `No approval ${id}`);
      }
      if (action !== 'approve' && action !== 'deny') return failure(404, 'NOT_FOUND', `No ${url.pathname}`);
      if (method !== 'POST') return only('POST');
      const body = await readBody();
      if (body instanceof Response) return body;
      const decision = decisionOf(action, body, caller.by);
      if (typeof decision === 'string') return failure(400, 'INVALID_REQUEST', decision);
      const { approval, outcome } = await approvals.decide(id, decision);
      return json(200, { approval: listedApproval(approval), outcome });
    }
    case 'audit': {
      if (id !== undefined) return failure(404, 'NOT_FOUND', `No ${url.pathname}`);
      if (method !== 'GET') return only('GET');
      const limit = integerParam(url, 'limit');
      if (limit instanceof Error) return failure(400, 'INVALID_REQUEST', limit.message);
      const after = integerParam(url, 'after', 0);
      if (after instanceof Error) return failure(400, 'INVALID_REQUEST', after.message);
      return json(200, {
        records: await gateway.audit.list({
          ...(limit === undefined ? {} : { limit }),
          ...(after === undefined || after === 0 ? {} : { after }),
        }),
      });
    }
    case 'upstreams':
      if (id !== undefined) return failure(404, 'NOT_FOUND', `No ${url.pathname}`);
      return method === 'GET' ? json(200, { upstreams: gateway.upstreams() }) : only('GET');
    case 'events':
      if (id !== undefined) return failure(404, 'NOT_FOUND', `No ${url.pathname}`);
      return method === 'GET' ? await events() : only('GET');
    default:
      return failure(404, 'NOT_FOUND', `No ${url.pathname}`);
  }
}

function isGrantDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= MAX_GRANT_MS;
}

/** The decision a body asks for, or what is wrong with it. */
function decisionOf(
  action: 'approve' | 'deny',
  body: Record<string, unknown>,
  decidedBy: string,
): ApprovalDecision | string {
  const { always, alwaysForMs, argumentsDigest, reason } = body;
  if (argumentsDigest !== undefined && typeof argumentsDigest !== 'string')
    return 'argumentsDigest must be a string';
  const decision: ApprovalDecision = { approve: action === 'approve', decidedBy };
  if (argumentsDigest !== undefined) decision.argumentsDigest = argumentsDigest;
  if (action === 'deny') {
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > 1000)) {
      return 'reason must be a string of at most 1000 characters';
    }
    if (reason !== undefined) decision.reason = reason;
    return decision;
  }
  if (always !== undefined && typeof always !== 'boolean') return 'always must be a boolean';
  if (alwaysForMs !== undefined && !isGrantDuration(alwaysForMs)) {
    return `alwaysForMs must be a positive integer of milliseconds, at most ${MAX_GRANT_MS} (365 days)`;
  }
  // alwaysForMs says how long "always" lasts: with always: false it contradicts the body.
  if (always === false && alwaysForMs !== undefined)
    return 'alwaysForMs goes with always: true (or no always), not always: false';
  if (always === true || alwaysForMs !== undefined) decision.always = true;
  if (alwaysForMs !== undefined) decision.alwaysForMs = alwaysForMs as number;
  return decision;
}
