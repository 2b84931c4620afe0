/**
 * Connects a toolwire Client to a target, runs a piece of work, and always disconnects. The whole connect
 * (spawn, era probe, handshake) is bounded by the timeout; a failure becomes a CliError that says what
 * happened (see `connectFailure`), with the server's stderr attached.
 * @module
 */
import { Client, type ApprovalOptions } from '../client/index.js';
import { ToolwireError, type ProgressParams, type Revision, type Root } from '../protocol/index.js';
import type { OAuthClient } from '../transports/http-client/index.js';
import { connectFailure, isReportedTransportError, type ConnectAttempt } from './connect-failure.js';
import { ExitCode, exitCodeFor } from './exit-code.js';
import { authorizes, openTarget, type OpenedTarget, type Target } from './open-target.js';
import { storedOAuthClient } from './stored-oauth.js';
import { terminalElicitation, type TerminalElicitation } from './terminal-elicitation.js';
import { VERSION } from './version.js';
import { printErr } from './terminal-text.js';
import { interruptOnSignals, type Interruption } from './stop-signals.js';

export interface WithClientOptions {
  /**
   * Bounds the connect, and each request after it, in ms (default 60 s); a request made with
   * `renewedByProgress` gets this long again at each progress notification.
   */
  timeout?: number | undefined;
  /**
   * How long a server command has to exit once its stdin is closed, then once sent SIGTERM, before
   * SIGKILL, in ms (default 1 s).
   */
  shutdownTimeout?: number | undefined;
  /** The longest a request made with `renewedByProgress` may take, progress or not, in ms (default 15 min). */
  maxTime?: number | undefined;
  /** Show the server's stderr as it comes (default: keep it, show it only on failure). */
  verbose?: boolean | undefined;
  /** The client's approval policy for tool calls (default none: every call runs). */
  approval?: ApprovalOptions | undefined;
  /** Speak this revision only (default: the client's `auto`). */
  protocolVersion?: Revision | undefined;
  /**
   * The OAuth client of a URL target (default: one with the tokens `toolwire login` kept for the URL, if
   * any, unless `TOOLWIRE_TOKEN` or an `Authorization` header is given).
   */
  oauth?: OAuthClient | undefined;
  /** Roots offered to the server (`roots/list`; default none, and no `roots` capability). */
  roots?: Root[] | undefined;
  /**
   * Answers the server's questions to the person (elicitation, form and URL mode; default: on the terminal
   * when stdin is one, else none declared).
   */
  elicitation?: TerminalElicitation | undefined;
}

export const CLIENT_INFO = { name: 'toolwire-cli', version: VERSION } as const;

export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * `--max-time`'s default: longer than a gateway lets a call take (2 minutes waiting for approval, then up to
 * 10 minutes upstream by default), yet bounded, so that a server reporting progress forever does not hold
 * the command forever (the spec: a client SHOULD enforce a maximum timeout whatever the progress).
 */
export const DEFAULT_MAX_TIME_MS = 900_000;

/**
 * The options of a request whose `--timeout` each progress notification renews, up to `--max-time` in all:
 * it asks for progress (a progress token, `onProgress` given or not), as a gateway holding a call for
 * approval needs to keep it alive.
 */
export function renewedByProgress(
  options: WithClientOptions,
  onProgress: (progress: ProgressParams) => void = () => undefined,
): {
  timeout: number;
  resetTimeoutOnProgress: true;
  maxTotalTimeout: number;
  onProgress: (progress: ProgressParams) => void;
} {
  return {
    timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: options.maxTime ?? DEFAULT_MAX_TIME_MS,
    onProgress,
  };
}

/** How long a connect waits after a server printed plain text on stdout before saying so (it goes on waiting). */
const PLAIN_TEXT_NOTE_MS = 2_000;

function plainTextNote(sample: string | undefined): string {
  const shown = sample ? ` ("${sample}")` : '';
  return `toolwire: still waiting for the MCP handshake; the server printed a line on stdout that is not JSON-RPC${shown}: an MCP server writes only MCP messages there\n`;
}

/** The client's own probe patience (5 s) is cut down when the whole connect has less than twice that. */
const DEFAULT_DISCOVER_TIMEOUT_MS = 5_000;

/**
 * Runs `work` with a connected client; closes the connection (and stops the server) afterwards. `work`
 * passes `signal` to its requests: a SIGINT or SIGTERM meanwhile cancels them (`notifications/cancelled`),
 * closes the connection, and fails with exit code 130 or 143 (see `interruptOnSignals`).
 */
export async function withClient<T>(
  target: Target,
  options: WithClientOptions,
  work: (client: Client, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const interruption = interruptOnSignals();
  try {
    return await connectAndWork(target, options, interruption, work);
  } finally {
    interruption.dispose();
  }
}

async function connectAndWork<T>(
  target: Target,
  options: WithClientOptions,
  interruption: Interruption,
  work: (client: Client, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const elicitation = options.elicitation ?? terminalElicitation();
  let note: ReturnType<typeof setTimeout> | undefined;
  const token = process.env.TOOLWIRE_TOKEN;
  const opened = openTarget(target, {
    showStderr: options.verbose === true,
    shutdownTimeoutMs: options.shutdownTimeout,
    token,
    oauth:
      options.oauth ??
      (target.kind === 'url' && !token && !authorizes(target.headers)
        ? storedOAuthClient(target.url)
        : undefined),
    // Said at once only when the wait goes on: a connect that fails soon says it in its own message.
    onPlainText: (sample) => {
      note = setTimeout(() => printErr(plainTextNote(sample)), PLAIN_TEXT_NOTE_MS);
      note.unref();
    },
  });
  let transportError: Error | undefined;
  const client = new Client(CLIENT_INFO, {
    requestTimeout: timeout,
    onError: (error) => {
      if (isReportedTransportError(error)) transportError ??= error;
    },
    ...(options.protocolVersion ? { protocolVersion: options.protocolVersion } : {}),
    ...(timeout < 2 * DEFAULT_DISCOVER_TIMEOUT_MS ? { discoverTimeout: Math.floor(timeout / 2) } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.roots && { roots: options.roots }),
    ...(elicitation && {
      elicitation: elicitation.handler,
      onElicitationComplete: elicitation.onComplete,
      capabilities: { elicitation: { form: {}, url: {} } },
    }),
  });
  const attempt = (timedOut: boolean): ConnectAttempt => ({
    description: opened.description,
    stderr: opened.stderrTail(),
    watch: opened.watch,
    transportError,
    timeout,
    timedOut,
  });
  const outcome = await connectWithin(client, opened, timeout, interruption.interrupted);
  clearTimeout(note);
  if (outcome !== 'connected') {
    if (opened.watch) opened.watch.givingUp = true;
    await client.close().catch(() => undefined);
    throw interruption.error ?? connectFailure(outcome.error, attempt(outcome.timedOut), 'connect');
  }
  try {
    // The requests given the signal were cancelled when it aborted; the work is not waited for.
    const working = work(client, interruption.signal);
    working.catch(() => undefined);
    return await Promise.race([working, interruption.interrupted]);
  } catch (error) {
    if (interruption.error) throw interruption.error;
    if (!(error instanceof ToolwireError) || exitCodeFor(error) !== ExitCode.Connection) throw error;
    throw connectFailure(error, attempt(false), 'work');
  } finally {
    await client.close().catch(() => undefined);
  }
}

type ConnectOutcome = 'connected' | { error: unknown; timedOut: boolean };

/**
 * Connects, or gives up when `timeout` ms have passed (whatever the client's own probe and handshake
 * timeouts), or as soon as the command echoes what it is sent or floods its stdout with what is not
 * JSON-RPC.
 */
async function connectWithin(
  client: Client,
  opened: OpenedTarget,
  timeout: number,
  interrupted: Promise<never>,
): Promise<ConnectOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connecting = client.connect(opened.transport, { timeout }).then(
    (): ConnectOutcome => 'connected',
    (error: unknown): ConnectOutcome => ({ error, timedOut: isTimeout(error) }),
  );
  const deadline = new Promise<ConnectOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ error: new Error('connect timed out'), timedOut: true }), timeout);
  });
  const never = new Promise<never>(() => undefined);
  const echoed = (opened.watch?.echo ?? never).then((): ConnectOutcome => ({
    error: new Error('the command echoes its input'),
    timedOut: false,
  }));
  const flooded = (opened.watch?.flooded ?? never).then((): ConnectOutcome => ({
    error: new Error('the command prints what is not JSON-RPC'),
    timedOut: false,
  }));
  try {
    const stopped = interrupted.catch((error: unknown): ConnectOutcome => ({ error, timedOut: false }));
    return await Promise.race([connecting, deadline, echoed, flooded, stopped]);
  } finally {
    clearTimeout(timer);
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof ToolwireError && error.code === 'REQUEST_TIMEOUT';
}
