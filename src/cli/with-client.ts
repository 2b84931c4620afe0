/**
 * Connects a toolwire Client to a target, runs a piece of work, and always disconnects.
 * Connection failures become exit code 4 with the server's stderr attached.
 * @module
 */
import { Client, type ApprovalOptions } from '../client/index.js';
import { ToolwireError, errorMessage } from '../protocol/index.js';
import { CliError, ExitCode, exitCodeFor, describeError } from './exit-code.js';
import { openTarget, type Target } from './open-target.js';
import { VERSION } from './version.js';

export interface WithClientOptions {
  /** Timeout of each request, in ms (default 60 s). The handshake waits this long, or 30 s if more. */
  timeout?: number;
  /** Show the server's stderr as it comes (default: keep it, show it only on failure). */
  verbose?: boolean;
  /** The client's approval policy for tool calls (default none: every call runs). */
  approval?: ApprovalOptions;
}

export const CLIENT_INFO = { name: 'toolwire-cli', version: VERSION } as const;

const DEFAULT_TIMEOUT_MS = 60_000;
/** The least the handshake waits: a server may take a while to start (npx, a cold cache). */
const MIN_CONNECT_TIMEOUT_MS = 30_000;

/** Runs `work` with a connected client; closes the connection (and stops the server) afterwards. */
export async function withClient<T>(
  target: Target,
  options: WithClientOptions,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const opened = openTarget(target, {
    inheritStderr: options.verbose === true,
    token: process.env.TOOLWIRE_TOKEN,
  });
  let transportError: Error | undefined;
  const client = new Client(CLIENT_INFO, {
    requestTimeout: timeout,
    onError: (error) => (transportError ??= error),
    ...(options.approval ? { approval: options.approval } : {}),
  });
  try {
    await client.connect(opened.transport, { timeout: Math.max(timeout, MIN_CONNECT_TIMEOUT_MS) });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw connectionFailure(`could not connect to ${opened.description}`, error, transportError, opened);
  }
  try {
    return await work(client);
  } catch (error) {
    if (!(error instanceof ToolwireError) || exitCodeFor(error) !== ExitCode.Connection) throw error;
    throw connectionFailure(undefined, error, transportError, opened);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The failure, with the server's stderr as detail; `what` prefixes it, else the server is named after it. */
function connectionFailure(
  what: string | undefined,
  error: unknown,
  transportError: Error | undefined,
  opened: { stderrTail(): string; description: string },
): CliError {
  const reasons = [describeError(error)];
  if (transportError && errorMessage(transportError) !== reasons[0])
    reasons.push(errorMessage(transportError));
  const stderr = opened.stderrTail().trimEnd();
  const detail = stderr ? `server stderr:\n${indent(stderr)}` : undefined;
  const message =
    what === undefined
      ? `${reasons.join('; ')} (server: ${opened.description})`
      : `${what}: ${reasons.join('; ')}`;
  return new CliError(
    exitCodeFor(error),
    message,
    detail === undefined ? { cause: error } : { cause: error, detail },
  );
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
