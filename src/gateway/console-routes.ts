/**
 * The decision API's endpoints for the console, beside the approvals: the exposed tools (their policy
 * and visibility, changed by a person), calling a tool as a person, the latest calls with their
 * arguments and results (and cancelling one), and reading a resource a result links to.
 *
 * - `GET  /api/tools`; `POST /api/tools/NAME/policy` `{ action: "allow" | "ask" | "deny" | null }`;
 *   `POST /api/tools/NAME/hidden` `{ hidden }`; `POST /api/tools/NAME/call` `{ arguments, tryId? }`.
 * - `GET  /api/calls?limit=N` (answers `{ calls, maxCalls?, marker?, runningOmitted? }`: the latest N — 200 by default — and the
 *   running calls older than them, how many the call log keeps at most, when its store says, and where the
 *   listing ends, and `runningOmitted`: how many running calls older still it leaves out, when the store
 *   counts them); `GET /api/calls?since=MARKER&limit=N` (answers the same and `whole`: the
 *   calls changed after the marker, newest first, `whole: false`; or, for a marker the store cannot follow —
 *   it restarted, trimmed calls that changed after it, another store's — the listing, `whole: true`); `GET /api/calls/ID`; `POST /api/calls/ID/cancel` (answers `{ id, state }`:
 *   `cancelled` here, or `requested` of the instance running it when instances share their stores; 409
 *   for a call that ended, one whose instance stopped while it ran — `outcome: 'lost'` — included).
 * - `GET  /api/resources/read?uri=URI`.
 * - `POST /api/upstreams/NAME/sign-in` `{}`: starts a person's sign-in to an OAuth-protected upstream,
 *   answers `{ authorizationUrl }` for the browser to open; the authorization server sends the browser
 *   back to the console's `/console/callback`, whose page hands the address it came back with to
 *   `POST /api/sign-in/callback` `{ url }`, which completes the sign-in its `state` names and connects
 *   the upstream, answering `{ upstream }` (its view). Both are changes: the API's credentials, and for
 *   the session cookie its CSRF checks, as every POST.
 * @module
 */
import {
  errorMessage,
  isJsonObject,
  isNestedDeeper,
  MAX_VALUE_DEPTH,
  ProtocolError,
  type JsonObject,
} from '../index.js';
import { parseCallMarker } from '../stores/call-log-store.js';
import { failure } from './api-json.js';
import type { ApiCaller } from './console-sessions.js';
import { asPerson } from './console-caller.js';
import type { Gateway } from './gateway.js';
import type { PolicyAction } from './gateway-config.js';

/** A response (JSON), as the decision API builds it. */
export type Reply = (status: number, body: unknown) => Response;

export interface RouteContext {
  request: Request;
  url: URL;
  /** The path after the API's base, split on `/` (decoded). */
  parts: string[];
  caller: ApiCaller;
  /** The JSON object of a POST, or the response that refused it. */
  body: () => Promise<Record<string, unknown> | Response>;
  reply: Reply;
  fail: (status: number, code: string, message: string) => Response;
}

function isAction(value: unknown): value is PolicyAction {
  return value === 'allow' || value === 'ask' || value === 'deny';
}
const TRY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The answer to a console endpoint, or undefined when the path is not one. */
export async function consoleRoute(gateway: Gateway, context: RouteContext): Promise<Response | undefined> {
  const [first] = context.parts;
  if (first === 'tools') return tools(gateway, context);
  if (first === 'calls') return calls(gateway, context);
  if (first === 'resources') return resources(gateway, context);
  if (first === 'upstreams' && context.parts[2] === 'sign-in') return startSignIn(gateway, context);
  if (first === 'sign-in') return completeSignIn(gateway, context);
  return undefined;
}

/** Where the authorization server sends the browser back: the console's page at `/console/callback`. */
const CALLBACK_PATH = '/console/callback';

async function startSignIn(gateway: Gateway, context: RouteContext): Promise<Response> {
  const { parts, request, reply, fail, url } = context;
  const name = parts[1];
  if (name === undefined || parts.length !== 3) return fail(404, 'NOT_FOUND', `No ${url.pathname}`);
  if (request.method !== 'POST') return only(context, 'POST');
  const body = await context.body();
  if (body instanceof Response) return body;
  const authorizationUrl = await gateway.signIn(name, `${url.origin}${CALLBACK_PATH}`);
  return reply(200, { authorizationUrl: authorizationUrl.href });
}

async function completeSignIn(gateway: Gateway, context: RouteContext): Promise<Response> {
  const { parts, request, reply, fail, url } = context;
  if (parts[1] !== 'callback' || parts.length !== 2) return fail(404, 'NOT_FOUND', `No ${url.pathname}`);
  if (request.method !== 'POST') return only(context, 'POST');
  const body = await context.body();
  if (body instanceof Response) return body;
  let callback: URL | undefined;
  try {
    callback = typeof body.url === 'string' ? new URL(body.url) : undefined;
  } catch {
    callback = undefined;
  }
  if (
    callback === undefined ||
    `${callback.origin}${callback.pathname}` !== `${url.origin}${CALLBACK_PATH}`
  ) {
    return fail(
      400,
      'INVALID_REQUEST',
      `url must be the address the browser came back to (${CALLBACK_PATH}?…)`,
    );
  }
  return reply(200, { upstream: await gateway.completeSignIn(callback) });
}

/** 405, with the `Allow` header an origin server must send (RFC 9110 §15.5.6). */
function only(context: RouteContext, allowed: string): Response {
  return failure(405, 'METHOD_NOT_ALLOWED', `${context.request.method} is not allowed here; use ${allowed}`, {
    allow: allowed,
  });
}

async function tools(gateway: Gateway, context: RouteContext): Promise<Response> {
  const { parts, request, reply, fail, caller } = context;
  const [, name, action, ...extra] = parts;
  if (name === undefined)
    return request.method === 'GET' ? reply(200, { tools: gateway.tools() }) : only(context, 'GET');
  if (action === undefined || extra.length > 0) return fail(404, 'NOT_FOUND', `No ${context.url.pathname}`);
  if (!['policy', 'hidden', 'call'].includes(action))
    return fail(404, 'NOT_FOUND', `No ${context.url.pathname}`);
  if (request.method !== 'POST') return only(context, 'POST');
  const body = await context.body();
  if (body instanceof Response) return body;
  if (action === 'policy') {
    const value = body.action;
    if (value === null) return reply(200, gateway.setToolPolicy(name, undefined, caller.by));
    if (!isAction(value)) {
      return fail(
        400,
        'INVALID_REQUEST',
        'action must be "allow", "ask", "deny" or null (back to the rules)',
      );
    }
    return reply(200, gateway.setToolPolicy(name, value, caller.by));
  }
  if (action === 'hidden') {
    if (typeof body.hidden !== 'boolean') return fail(400, 'INVALID_REQUEST', 'hidden must be a boolean');
    return reply(200, gateway.setToolHidden(name, body.hidden));
  }
  if (!gateway.tools().some((tool) => tool.name === name))
    return fail(404, 'TOOL_NOT_FOUND', `No tool ${name}`);
  const args = body.arguments ?? {};
  if (!isJsonObject(args)) return fail(400, 'INVALID_REQUEST', 'arguments must be a JSON object');
  // Measured before anything recursive reads them (the call's own checks would overflow the stack first).
  if (isNestedDeeper(args, MAX_VALUE_DEPTH))
    return fail(400, 'INVALID_REQUEST', `arguments are nested deeper than ${MAX_VALUE_DEPTH} levels`);
  const tryId = body.tryId;
  if (tryId !== undefined && !(typeof tryId === 'string' && TRY_ID.test(tryId))) {
    return fail(400, 'INVALID_REQUEST', 'tryId must be 1-64 letters, digits, "_" or "-"');
  }
  try {
    const result = await asPerson(gateway.server, caller.by, tryId && `console-${tryId}`, (client) =>
      client.callTool(name, args as JsonObject, {
        signal: request.signal,
        // The gateway's progress while the call waits for approval renews the timeout, as the tool's does.
        onProgress: () => undefined,
        resetTimeoutOnProgress: true,
        timeout: 120_000,
      }),
    );
    return reply(200, { result });
  } catch (error) {
    const code = error instanceof ProtocolError ? error.code : undefined;
    return fail(502, 'CALL_FAILED', `${code === undefined ? '' : `${code}: `}${errorMessage(error)}`);
  }
}

async function calls(gateway: Gateway, context: RouteContext): Promise<Response> {
  const { parts, request, reply, fail, url, caller } = context;
  const [, idText, action, ...extra] = parts;
  if (idText === undefined) {
    if (request.method !== 'GET') return only(context, 'GET');
    const limit = integerParam(url, 'limit');
    if (limit instanceof Error) return fail(400, 'INVALID_REQUEST', limit.message);
    const since = url.searchParams.get('since') ?? undefined;
    if (since !== undefined && parseCallMarker(since) === undefined) {
      return fail(
        400,
        'INVALID_REQUEST',
        `since must be a marker from an earlier answer, got "${since.slice(0, 40)}"`,
      );
    }
    const { calls, whole, marker, runningOmitted } = await gateway.calls.changes(since, limit ?? 200);
    const { maxCalls } = gateway.calls;
    return reply(200, {
      calls,
      ...(maxCalls === undefined ? {} : { maxCalls }),
      ...(marker === undefined ? {} : { marker }),
      ...(since === undefined ? {} : { whole }),
      ...(runningOmitted === undefined ? {} : { runningOmitted }),
    });
  }
  const id = Number(idText);
  if (!Number.isSafeInteger(id) || extra.length > 0) return fail(404, 'NOT_FOUND', `No ${url.pathname}`);
  if (action === undefined) {
    if (request.method !== 'GET') return only(context, 'GET');
    const record = await gateway.calls.get(id);
    return record ? reply(200, record) : fail(404, 'CALL_NOT_FOUND', `No call ${id}`);
  }
  if (action !== 'cancel') return fail(404, 'NOT_FOUND', `No ${url.pathname}`);
  if (request.method !== 'POST') return only(context, 'POST');
  // Cancelled here, or (stores shared) asked of the instance running it: `requested`.
  const state = await gateway.calls.cancel(id, caller.by);
  if (state === undefined) return fail(404, 'CALL_NOT_FOUND', `No call ${id}`);
  if (state === 'finished') return fail(409, 'CALL_FINISHED', `Call ${id} has finished already`);
  return reply(200, { id, state });
}

/**
 * A query parameter that must be an integer of at least `min` (1: positive; 0: `after=0` is the start):
 * its value, undefined when absent, or the Error that says what is wrong with it.
 */
export function integerParam(url: URL, name: string, min = 1): number | undefined | Error {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(n) && n >= min) return n;
  return new Error(`${name} must be an integer of at least ${min}, got "${value.slice(0, 40)}"`);
}

async function resources(gateway: Gateway, context: RouteContext): Promise<Response> {
  const { parts, request, reply, fail, url, caller } = context;
  if (parts[1] !== 'read' || parts.length !== 2) return fail(404, 'NOT_FOUND', `No ${url.pathname}`);
  if (request.method !== 'GET') return only(context, 'GET');
  const uri = url.searchParams.get('uri');
  if (!uri || uri.length > 8192) return fail(400, 'INVALID_REQUEST', 'Name the resource: ?uri=URI');
  try {
    const result = await asPerson(gateway.server, caller.by, undefined, (client) =>
      client.readResource(uri, { signal: request.signal }),
    );
    return reply(200, result);
  } catch (error) {
    return fail(error instanceof ProtocolError ? 404 : 502, 'READ_FAILED', errorMessage(error));
  }
}
