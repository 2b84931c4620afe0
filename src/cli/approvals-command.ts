/**
 * `toolwire approvals list | approve ID [--always [--for MS]] | deny ID [--reason TEXT]`: the gateway's
 * pending approvals, from the command line, through its decision API (`--gateway URL`, default
 * `$TOOLWIRE_GATEWAY` or http://127.0.0.1:3000; the token from `TOOLWIRE_TOKEN`). `--json` prints the API's
 * answer as it came.
 * @module
 */
import { CLI, helpHint } from './command-name.js';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError, type ExitCodeValue } from './exit-code.js';
import { parseCommandLine, parsePositiveInteger, wantsHelp } from './parse-command-line.js';
import { describeFetchFailure } from './report-failure.js';
import { oneLine, printJson, printOut } from './terminal-text.js';
import { MAX_GRANT_MS } from '../gateway/index.js';

/** The fewest characters of an id that name a pending approval by its start. */
const MIN_PREFIX = 6;

const APPROVALS_OPTIONS = {
  gateway: { type: 'string' },
  always: { type: 'boolean' },
  for: { type: 'string' },
  reason: { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

export const APPROVALS_HELP = `Usage: toolwire approvals list [--gateway URL] [--json]
       toolwire approvals approve ID [--always [--for MS]] [--gateway URL] [--json]
       toolwire approvals deny ID [--reason TEXT] [--gateway URL] [--json]

The calls a toolwire gateway holds for approval, and the decisions: approve once, approve always
(this tool for this caller, until the gateway restarts or for --for MS, at most 365 days), or deny
(the model reads --reason). An approval is used once; one already decided or expired is refused.
ID may be the start of a pending approval's id (at least ${MIN_PREFIX} characters, as list and the console
show it) when no other pending approval's id starts so.
list shows the oldest first, every page of the gateway's listing (up to 20,000 approvals); past that,
it says "showing N of M".

  --gateway URL   the gateway (http://HOST:PORT, its /mcp or /api URL); default $TOOLWIRE_GATEWAY,
                  else http://127.0.0.1:3000
  --json          print the decision API's JSON answer
  --timeout MS    how long to wait for the gateway (default 10000)

The API token comes from TOOLWIRE_TOKEN (the gateway prints it when it starts).

Examples:
  export TOOLWIRE_TOKEN=…            # as printed by: ${CLI} gateway --http …
  ${CLI} approvals list
  ${CLI} approvals approve 3f0c9a52 --always
  ${CLI} approvals deny 3f0c9a --reason "not that file"

${EXIT_CODES_HELP}
`;

const HINT = helpHint('approvals');

interface PendingView {
  id: string;
  upstream: string;
  tool: string;
  exposedName: string;
  expiresAt: string;
  caller: { principal?: string; sessionId?: string };
  /** Left out of listings when too long (`argumentsOmitted`, `argumentsBytes`). */
  arguments?: unknown;
  argumentsOmitted?: boolean;
  argumentsBytes?: number;
  argumentsDigest: string;
  reason: string;
}

/** The decision API's base URL for what the user gave. */
export function apiBase(given: string | undefined): string {
  const raw = given ?? process.env.TOOLWIRE_GATEWAY ?? 'http://127.0.0.1:3000';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--gateway must be an http(s) URL, got "${raw}"`, HINT);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`--gateway must be an http(s) URL, got "${raw}"`, HINT);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/(mcp|api)$/, '');
  return `${url.origin}${path}/api`;
}

async function request(
  base: string,
  path: string,
  token: string,
  timeoutMs: number,
  body?: Record<string, unknown>,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new CliError(
      ExitCode.Connection,
      `cannot reach the gateway at ${base}: ${describeFetchFailure(error)}`,
      {
        code: 'CONNECTION_FAILED',
        cause: error,
        detail:
          'Is the gateway running there? Point at another with --gateway URL (or $TOOLWIRE_GATEWAY), e.g. --gateway http://127.0.0.1:3000.',
        details: { url: `${base}${path}` },
      },
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(
      ExitCode.Protocol,
      `the gateway answered HTTP ${response.status} without JSON: ${text.slice(0, 200)}`,
    );
  }
  if (response.ok) return parsed;
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : {};
  const code = typeof error.code === 'string' ? error.code : `HTTP_${response.status}`;
  const message = `the gateway refused: ${typeof error.message === 'string' ? error.message : `HTTP ${response.status}`}`;
  if (response.status === 401 || response.status === 403) {
    throw new CliError(ExitCode.Denied, message, {
      code,
      detail: 'Set TOOLWIRE_TOKEN to the API token the gateway printed when it started.',
    });
  }
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 503 && retryAfter !== null) {
    // Unavailable for now (its Redis is out of reach): a connection failure, worth trying again.
    throw new CliError(ExitCode.Connection, `${message}; try again in ${retryAfter} s`, {
      code,
      details: { status: response.status, retryAfter },
    });
  }
  // The decision API's errors are { error: { code, message } }; other JSON (an MCP endpoint's JSON-RPC error,
  // another service's) is not its answer, whatever the status: no approval was found unknown or settled.
  if (parsed !== null && typeof error.code !== 'string')
    throw notTheApi(`error (HTTP ${response.status})`, parsed);
  throw new CliError(response.status >= 500 ? ExitCode.Protocol : ExitCode.Usage, message, {
    code,
    details: { status: response.status },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an approval as the decision API lists it (what this command reads of one). */
function isApproval(value: unknown): value is PendingView {
  return (
    isObject(value) &&
    ['id', 'upstream', 'tool', 'expiresAt'].every((key) => typeof value[key] === 'string') &&
    isObject(value.caller)
  );
}

/** The error for an answer that is JSON, but not the decision API's. */
function notTheApi(what: string, answer: unknown): CliError {
  const text = JSON.stringify(answer) ?? String(answer);
  return new CliError(
    ExitCode.Protocol,
    `the gateway answered ${text.length > 200 ? `${text.slice(0, 200)}…` : text}, which is not the decision API's ${what}`,
    {
      code: 'UNEXPECTED_ANSWER',
      detail: 'Is --gateway a toolwire gateway (http://HOST:PORT, its /mcp or /api URL), not an MCP server?',
    },
  );
}

function describe(approval: PendingView, now: number): string {
  const seconds = Math.max(0, Math.round((Date.parse(approval.expiresAt) - now) / 1000));
  const caller =
    approval.caller.principal ??
    (approval.caller.sessionId ? `session ${approval.caller.sessionId}` : 'anonymous');
  const args = shownArguments(approval);
  // What the gateway relays (an upstream's tool name, a principal, a reason) is one line each.
  return [
    oneLine(`${approval.id}  ${approval.upstream}.${approval.tool}  (${caller}; expires in ${seconds} s)`),
    `    arguments: ${args.length > 400 ? `${args.slice(0, 400)}…` : args}`,
    `    why: ${oneLine(approval.reason)}`,
  ].join('\n');
}

/** The arguments as JSON, or what stands for them when the listing left them out. */
function shownArguments(approval: PendingView): string {
  if (approval.argumentsOmitted === true || approval.arguments === undefined)
    return `(${approval.argumentsBytes ?? '?'} bytes, too long to list; ${approval.argumentsDigest})`;
  return JSON.stringify(approval.arguments);
}

/** Approvals `list` reads at most, and requests it makes at most for them (a page may come short). */
const MAX_LISTED = 20_000;
const MAX_PAGES = 200;

/**
 * The pending approvals, page after page (`nextCursor`) up to `MAX_LISTED`: `{ approvals, total }`, and
 * `truncated: true` when it stopped short of them. A gateway before paging answers one page without a cursor.
 */
async function listPending(
  base: string,
  token: string,
  timeout: number,
): Promise<{ approvals: PendingView[]; total: number; truncated?: true }> {
  const approvals: PendingView[] = [];
  const seen = new Set<string>();
  let total = 0;
  let cursor: string | undefined;
  let pages = 0;
  do {
    const query = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const answer = await request(base, `/approvals${query}`, token, timeout);
    if (!isObject(answer) || !Array.isArray(answer.approvals) || !answer.approvals.every(isApproval))
      throw notTheApi('list of approvals', answer);
    const page = answer.approvals as PendingView[];
    for (const approval of page)
      if (!seen.has(approval.id) && seen.add(approval.id)) approvals.push(approval);
    // Some decided and others created between pages: how many wait as the latest page says.
    if (typeof answer.total === 'number') total = answer.total;
    const next = typeof answer.nextCursor === 'string' ? answer.nextCursor : undefined;
    // The same cursor again would go round forever.
    cursor = next !== cursor ? next : undefined;
  } while (cursor !== undefined && approvals.length < MAX_LISTED && ++pages < MAX_PAGES);
  if (cursor !== undefined || total > approvals.length)
    return { approvals, total: Math.max(total, approvals.length + 1), truncated: true };
  return { approvals, total: approvals.length };
}

/**
 * The whole id of the one pending approval whose id starts with `prefix` (at least `MIN_PREFIX` characters,
 * case aside); `notFound` (the gateway's 404 for `prefix` as an id) when none does, a usage error when several do.
 */
async function byPrefix(
  prefix: string,
  base: string,
  token: string,
  timeout: number,
  notFound: CliError,
): Promise<string> {
  if (prefix.length < MIN_PREFIX) throw notFound;
  const start = prefix.toLowerCase();
  const { approvals } = await listPending(base, token, timeout);
  const matches = approvals.filter((a) => a.id.toLowerCase().startsWith(start));
  const [only] = matches;
  if (only === undefined) {
    throw new CliError(ExitCode.Usage, `no pending approval's id is or starts with "${oneLine(prefix)}"`, {
      code: 'APPROVAL_NOT_FOUND',
      detail: `Its id is in: ${CLI} approvals list`,
      details: { id: prefix },
    });
  }
  if (matches.length > 1) {
    const shown = matches.slice(0, 5).map((a) => a.id);
    throw usageError(
      `"${oneLine(prefix)}" starts the ids of ${matches.length} pending approvals (${shown.join(', ')}${matches.length > 5 ? ', …' : ''}); give more of the id`,
      HINT,
      { code: 'APPROVAL_AMBIGUOUS', details: { id: prefix, matches: shown } },
    );
  }
  return only.id;
}

export async function approvalsCommand(argv: readonly string[]): Promise<ExitCodeValue> {
  if (wantsHelp(argv)) {
    printOut(APPROVALS_HELP);
    return ExitCode.Success;
  }
  const { values, positionals, rest } = parseCommandLine(argv, APPROVALS_OPTIONS, HINT);
  if (rest !== undefined) throw usageError('approvals takes no "--"', HINT);
  const [action, id, ...extra] = positionals;
  if (action !== 'list' && action !== 'approve' && action !== 'deny') {
    throw usageError(`approvals needs list, approve ID or deny ID${action ? `, not "${action}"` : ''}`, HINT);
  }
  if (action === 'list' ? id !== undefined : id === undefined || extra.length > 0) {
    throw usageError(
      action === 'list' ? 'approvals list takes no ID' : `approvals ${action} takes one ID`,
      HINT,
    );
  }
  if (action !== 'approve' && (values.always || values.for !== undefined)) {
    throw usageError('--always and --for go with approve', HINT);
  }
  if (action !== 'deny' && values.reason !== undefined) throw usageError('--reason goes with deny', HINT);
  const token = process.env.TOOLWIRE_TOKEN;
  if (!token)
    throw usageError('set TOOLWIRE_TOKEN to the API token the gateway printed when it started', HINT);
  const base = apiBase(values.gateway);
  const timeout = parsePositiveInteger(values.timeout, 'timeout', HINT) ?? 10_000;
  // Not a timer here: the gateway keeps the approval until then.
  const forMs = parsePositiveInteger(values.for, 'for', HINT, Number.MAX_SAFE_INTEGER);
  if (forMs !== undefined && forMs > MAX_GRANT_MS)
    throw usageError(`--for may be at most ${MAX_GRANT_MS} (365 days), got ${forMs}`, HINT);

  if (action === 'list') {
    const answer = await listPending(base, token, timeout);
    if (values.json) printJson(answer);
    else if (answer.approvals.length === 0) printOut('no pending approvals\n');
    else printOut(`${answer.approvals.map((a: PendingView) => describe(a, Date.now())).join('\n')}\n`);
    // A gateway listing at most so many (its Redis budget) says how many wait in all.
    if (!values.json && answer.total > answer.approvals.length)
      printOut(
        `showing ${answer.approvals.length} of ${answer.total} pending (the oldest first; decide them to see the rest)\n`,
      );
    return ExitCode.Success;
  }
  const body: Record<string, unknown> = {};
  if (action === 'approve' && (values.always || forMs !== undefined)) body.always = true;
  if (forMs !== undefined) body.alwaysForMs = forMs;
  if (values.reason !== undefined) body.reason = values.reason;
  const decide = (full: string) =>
    request(base, `/approvals/${encodeURIComponent(full)}/${action}`, token, timeout, body);
  let answer: unknown;
  try {
    answer = await decide(id!);
  } catch (error) {
    // Not an approval's whole id: the start of one, when a single pending approval's id starts so.
    if (!(error instanceof CliError) || error.code !== 'APPROVAL_NOT_FOUND') throw error;
    answer = await decide(await byPrefix(id!, base, token, timeout, error));
  }
  if (
    !isObject(answer) ||
    !isApproval(answer.approval) ||
    !isObject(answer.outcome) ||
    typeof answer.outcome.decision !== 'string'
  )
    throw notTheApi('decision', answer);
  if (values.json) printJson(answer);
  else {
    const { approval, outcome } = answer as {
      approval: PendingView;
      outcome: { decision: string; always?: boolean };
    };
    printOut(
      `${oneLine(`${outcome.decision}${outcome.always ? ' always' : ''}: ${approval.upstream}.${approval.tool} ${shownArguments(approval)}`)}\n`,
    );
  }
  return ExitCode.Success;
}
