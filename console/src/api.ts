// The gateway's decision API as the console calls it: same origin, the session cookie (HttpOnly: this
// code never sees it), and on every request the header that tells the gateway the request comes from the
// console's own page (no other site can add it without a CORS preflight, which the gateway never grants).
import type { CallToolResult, ReadResourceResult } from 'toolwire';
import type {
  ApprovalOutcome,
  ApprovalsListing,
  CallRecord,
  CallSummary,
  ExposedToolView,
  GatewayAuditRecord,
  ListedApproval,
  PendingApproval,
  PolicyAction,
  StoredApproval,
  UpstreamView,
} from 'toolwire/gateway';

export type {
  ApprovalOutcome,
  ApprovalsListing,
  CallRecord,
  CallSummary,
  ExposedToolView,
  GatewayAuditRecord,
  ListedApproval,
  PendingApproval,
  PolicyAction,
  StoredApproval,
  UpstreamView,
};

/** Who is signed in. */
export interface Session {
  by: string;
  canDecide: boolean;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let unauthorized: () => void = () => undefined;

/**
 * Called on a 401 from any request but the session's own (a sign-in with a wrong token, or the first
 * "who is signed in?"): the session ended (signed out in another tab, expired), and the page goes back to
 * the sign-in form.
 */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler;
}

async function request<T>(path: string, method = 'GET', body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { 'x-toolwire-console': '1' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  const data = (await response.json().catch(() => undefined)) as
    { error?: { code?: string; message?: string } } | undefined;
  if (!response.ok) {
    if (response.status === 401 && path !== '/session') unauthorized();
    throw new ApiError(
      response.status,
      data?.error?.code ?? `HTTP_${response.status}`,
      data?.error?.message ?? `The gateway answered ${response.status}`,
    );
  }
  return data as T;
}

const path = (name: string) => encodeURIComponent(name);

/** Why the event stream is refused: the gateway's message (too many streams, say), or a general one. */
async function streamRefusal(): Promise<string> {
  let why = 'the event stream is unavailable';
  try {
    const controller = new AbortController();
    const response = await fetch('/api/events', {
      headers: { accept: 'text/event-stream' },
      credentials: 'same-origin',
      cache: 'no-store',
      signal: controller.signal,
    });
    if (response.ok) controller.abort();
    else {
      const data = (await response.json().catch(() => undefined)) as
        { error?: { message?: string } } | undefined;
      why = data?.error?.message ?? `the gateway answered ${response.status}`;
    }
  } catch {
    // unreachable: the message above
  }
  return why;
}

export const api = {
  signIn: (token: string, name?: string) =>
    request<Session>('/session', 'POST', name ? { token, name } : { token }),
  /** Who is signed in; `{ signedIn: false }` when this browser has no session cookie (not a 401). */
  session: () => request<(Session & { signedIn: true; via: string }) | { signedIn: false }>('/session'),
  signOut: () => request<unknown>('/session', 'DELETE'),
  upstreams: () => request<{ upstreams: UpstreamView[] }>('/upstreams'),
  tools: () => request<{ tools: ExposedToolView[] }>('/tools'),
  setPolicy: (tool: string, action: PolicyAction | null) =>
    request<ExposedToolView>(`/tools/${path(tool)}/policy`, 'POST', { action }),
  setHidden: (tool: string, hidden: boolean) =>
    request<ExposedToolView>(`/tools/${path(tool)}/hidden`, 'POST', { hidden }),
  call: (tool: string, args: unknown, tryId: string, signal?: AbortSignal) =>
    request<{ result: CallToolResult }>(
      `/tools/${path(tool)}/call`,
      'POST',
      { arguments: args, tryId },
      signal,
    ),
  /**
   * The latest `limit` calls (and the running ones older), how many the gateway's call log keeps at most and
   * where the listing ends (when it says); with `since` (a marker it gave), the calls changed after it
   * (`whole: false`) or, when it cannot follow the marker, the listing (`whole: true`); how many running calls
   * older than those listed it leaves out (`runningOmitted`, when the call log counts them).
   */
  calls: (limit: number, since?: string) =>
    request<{
      calls: CallSummary[];
      maxCalls?: number;
      marker?: string;
      whole?: boolean;
      runningOmitted?: number;
    }>(`/calls?limit=${limit}${since === undefined ? '' : `&since=${encodeURIComponent(since)}`}`),
  callDetail: (id: number) => request<CallRecord>(`/calls/${id}`),
  cancel: (id: number) => request<unknown>(`/calls/${id}/cancel`, 'POST', {}),
  /** One approval whole: its arguments, which a listing leaves out when they are long. */
  approval: (id: string) => request<StoredApproval>(`/approvals/${path(id)}`),
  /** `always`: this tool, this caller, from now on — for `alwaysForMs`, or as long as the gateway keeps grants. */
  approve: (id: string, argumentsDigest: string, always: boolean, alwaysForMs?: number) =>
    request<{ outcome: ApprovalOutcome }>(`/approvals/${path(id)}/approve`, 'POST', {
      argumentsDigest,
      ...(always ? { always: true } : {}),
      ...(always && alwaysForMs !== undefined ? { alwaysForMs } : {}),
    }),
  /** A page of the pending approvals: the first, or the one `cursor` (a page's `nextCursor`) names. */
  approvals: (cursor?: string, limit?: number) =>
    request<ApprovalsListing>(
      `/approvals?${new URLSearchParams({
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit: String(limit) }),
      }).toString()}`,
    ),
  deny: (id: string, reason: string) =>
    request<{ outcome: ApprovalOutcome }>(
      `/approvals/${path(id)}/deny`,
      'POST',
      reason === '' ? {} : { reason },
    ),
  audit: (limit = 200) => request<{ records: GatewayAuditRecord[] }>(`/audit?limit=${limit}`),
  startSignIn: (upstream: string) =>
    request<{ authorizationUrl: string }>(`/upstreams/${path(upstream)}/sign-in`, 'POST', {}),
  finishSignIn: (url: string) => request<{ upstream: UpstreamView }>('/sign-in/callback', 'POST', { url }),
  streamRefusal,
  read: (uri: string) => request<ReadResourceResult>(`/resources/read?uri=${encodeURIComponent(uri)}`),
};
