/**
 * The command line of every command that talks to a server (`tools`, `call`, `resources`, `read`,
 * `prompts`, `prompt`): the shared options (`--json`, `--timeout`, `--shutdown-timeout`, `--protocol-version`,
 * `--header`, `--verbose`, `--root`; `--max-time` for `call`, `read` and `prompt` only), the command's own, and
 * the server: `-- <command...>` or an http(s) URL.
 * @module
 */
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HANDSHAKE_REVISIONS, STATELESS_REVISIONS, type Revision, type Root } from '../protocol/index.js';
import { usageError } from './exit-code.js';
import { isUrlTarget, parseTarget, takeUrlTarget, type Target } from './open-target.js';
import { parseCommandLine, parsePositiveInteger, type CommandLine } from './parse-command-line.js';
import { DEFAULT_MAX_TIME_MS, type WithClientOptions } from './with-client.js';

/** Options every client command takes. */
export const CLIENT_OPTIONS = {
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'max-time': { type: 'string' },
  'protocol-version': { type: 'string' },
  header: { type: 'string', multiple: true },
  verbose: { type: 'boolean', short: 'v' },
  root: { type: 'string', multiple: true },
} as const;

type Options = NonNullable<Parameters<typeof parseCommandLine>[1]>;

/** Every revision the client speaks, newest first. */
export const KNOWN_REVISIONS: readonly Revision[] = [...STATELESS_REVISIONS, ...HANDSHAKE_REVISIONS];

const JSON_HELP = `  --json          print the raw result as JSON (and failures as one JSON object: see below)`;

/** The rest of the shared options' help, after `--json` and the timeouts. */
const SHARED_HELP = `  --shutdown-timeout MS
                  when done, how long a server command has to exit once its stdin is closed, then
                  once sent SIGTERM, before SIGKILL, in ms (default 1000)
  --protocol-version REV
                  speak this protocol revision only: ${KNOWN_REVISIONS.join(', ')}
                  (default: the newest both sides speak; ${STATELESS_REVISIONS.join(', ')} is the stateless era)
  --header 'K: V' send this HTTP header with every request (URL only; repeatable), e.g. for auth
                  (an OAuth access token is better passed in TOOLWIRE_TOKEN: sent as a Bearer token,
                  kept out of the command line)
  --root DIR      offer this folder to the server as a root (roots/list; repeatable), e.g. --root .
                  for a server that works in the folders its client names
  -v, --verbose   show the server's stderr as it comes (default: only when the connection fails)
  -h, --help      show this help`;

/** The help text of the shared options of `call`, `read` and `prompt`, whose request progress renews. */
export const CLIENT_OPTIONS_HELP = `${JSON_HELP}
  --timeout MS    bounds connecting to the server (spawn and handshake) and each request, in ms
                  (default 60000); a call, read or prompt that reports progress (a gateway does,
                  while a call waits for approval) gets another --timeout at each progress
                  notification, up to --max-time
  --max-time MS   the longest a call, read or prompt may take, in ms, however much progress it
                  reports (default ${DEFAULT_MAX_TIME_MS}: 15 minutes)
${SHARED_HELP}`;

/** The help text of the shared options of `tools`, `resources` and `prompts`: no `--max-time`. */
export const LISTING_OPTIONS_HELP = `${JSON_HELP}
  --timeout MS    bounds connecting to the server (spawn and handshake) and each request, in ms
                  (default 60000)
${SHARED_HELP}`;

export interface ClientCommandLine<O extends Options> {
  values: CommandLine<typeof CLIENT_OPTIONS & O>['values'];
  /** The positionals that are not the server URL. */
  positionals: string[];
  target: Target;
  /** `--json` was given. */
  json: boolean;
  /** What `withClient` needs: timeout, verbosity, protocol version. */
  client: WithClientOptions;
}

/** Parses a client command's arguments; every problem is a usage error (exit 2) pointing at `hint`. */
export function parseClientCommandLine<O extends Options>(
  argv: readonly string[],
  options: O,
  hint: string,
  rules: {
    /** The most positionals the command takes besides the URL (default: any number). */
    maxPositionals?: number;
    /** A positional may be an http(s) URL of its own (`read URI`), not only the server's. */
    urlPositionals?: boolean;
    /**
     * The command lists (`tools`, `resources`, `prompts`): no progress renews its requests, each bounded by
     * `--timeout`, so `--max-time` is a usage error.
     */
    listing?: boolean;
  } = {},
): ClientCommandLine<O> {
  const { values, positionals, rest } = parseCommandLine(argv, { ...CLIENT_OPTIONS, ...options }, hint);
  const shared = values as CommandLine<typeof CLIENT_OPTIONS>['values'];
  const { url, others } = takeUrlTarget(positionals, rest);
  if (rest !== undefined && rules.urlPositionals !== true && others.some(isUrlTarget)) {
    throw usageError('give either a server URL or "-- <command...>", not both', hint);
  }
  if (rules.maxPositionals !== undefined && others.length > rules.maxPositionals) {
    const extra = others[rules.maxPositionals];
    throw usageError(`unexpected argument "${extra}" (put the server command after "--")`, hint);
  }
  const target = parseTarget(rest, hint, { url, headers: shared.header });
  const timeout = parsePositiveInteger(shared.timeout, 'timeout', hint);
  const shutdownTimeout = parsePositiveInteger(shared['shutdown-timeout'], 'shutdown-timeout', hint);
  if (rules.listing === true && shared['max-time'] !== undefined) {
    throw usageError(
      '--max-time bounds a call, read or prompt only (a listing asks for no progress: --timeout bounds each of its requests)',
      hint,
    );
  }
  const maxTime = parsePositiveInteger(shared['max-time'], 'max-time', hint);
  const protocolVersion = parseRevision(shared['protocol-version'], hint);
  const roots = parseRoots(shared.root, hint);
  return {
    values,
    positionals: others,
    target,
    json: shared.json === true,
    client: {
      timeout,
      maxTime,
      shutdownTimeout,
      verbose: shared.verbose,
      protocolVersion,
      ...(roots && { roots }),
    },
  };
}

/** `--root DIR`s as roots: each an existing folder, as a `file://` URI of its absolute path, named after it. */
function parseRoots(dirs: readonly string[] | undefined, hint: string): Root[] | undefined {
  if (dirs === undefined || dirs.length === 0) return undefined;
  return dirs.map((dir) => {
    const path = resolve(dir);
    let isFolder = false;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      // reported below
    }
    if (!isFolder) throw usageError(`--root ${dir}: no such folder`, hint);
    return { uri: pathToFileURL(path).href, name: basename(path) || path };
  });
}

/** `--protocol-version REV`, checked against the revisions the client speaks. */
export function parseRevision(value: string | undefined, hint: string): Revision | undefined {
  if (value === undefined) return undefined;
  const known = KNOWN_REVISIONS.find((revision) => revision === value);
  if (known === undefined) {
    throw usageError(`unknown protocol version "${value}" (known: ${KNOWN_REVISIONS.join(', ')})`, hint, {
      code: 'UNKNOWN_PROTOCOL_VERSION',
    });
  }
  return known;
}
