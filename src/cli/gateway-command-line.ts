/**
 * The gateway configuration a `toolwire gateway` command line asks for: the `--config` file's, with the
 * quick flags on top — `--upstream NAME=URL`, `--upstream 'NAME=command args'` (split on spaces, no
 * shell), `--upstream NAME -- command args…` (everything after `--`), `--policy 'NAME.TOOL=ACTION'`
 * (before the file's rules: the command line wins), `--default ACTION`, `--trust NAME`, and the HTTP
 * listener's `--allowed-host HOST`, `--allowed-origin URL` (added to the file's lists) and
 * `--trust-forwarded-proto`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  GatewayError,
  parseConfigText,
  checkConfig,
  type GatewayConfig,
  type PolicyAction,
  type PolicyRule,
  type UpstreamConfig,
} from '../gateway/index.js';
import { usageError } from './exit-code.js';

export interface GatewayFlags {
  config?: string | undefined;
  upstream?: string[] | undefined;
  policy?: string[] | undefined;
  default?: string | undefined;
  trust?: string[] | undefined;
  'allowed-host'?: string[] | undefined;
  'allowed-origin'?: string[] | undefined;
  'trust-forwarded-proto'?: boolean | undefined;
}

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];
const NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** `NAME.TOOL=ACTION` (TOOL may be a glob; NAME too, `*` for every upstream). */
export function parsePolicyFlag(flag: string, hint: string | undefined): PolicyRule {
  const match = /^([^.=]+)\.([^=]+)=(.+)$/.exec(flag);
  const action = match?.[3]?.trim();
  if (!match || action === undefined || !ACTIONS.includes(action)) {
    throw usageError(
      `--policy must be NAME.TOOL=allow|ask|deny (e.g. files.write_file=ask), got "${flag}"`,
      hint,
    );
  }
  const upstream = match[1]!.trim();
  const rule: PolicyRule = { tool: match[2]!.trim(), action: action as PolicyAction };
  if (upstream !== '*') rule.upstream = upstream;
  return rule;
}

/** One `--upstream` value; `command` is what followed `--`, for the one `--upstream NAME` without `=`. */
export function parseUpstreamFlag(
  flag: string,
  command: string[] | undefined,
  hint: string | undefined,
): [string, UpstreamConfig] {
  const equals = flag.indexOf('=');
  const name = (equals === -1 ? flag : flag.slice(0, equals)).trim();
  if (!NAME.test(name)) {
    throw usageError(`--upstream needs a name of letters, digits, _ and - (at most 32), got "${name}"`, hint);
  }
  if (equals === -1) {
    if (!command?.length) throw usageError(`--upstream ${name} needs "-- command args…" at the end`, hint);
    return [name, { command: command[0]!, args: command.slice(1) }];
  }
  const value = flag.slice(equals + 1).trim();
  if (/^https?:\/\//i.test(value)) return [name, { url: value }];
  const words = value.split(/\s+/).filter(Boolean);
  if (words.length === 0) throw usageError(`--upstream ${name}= needs a URL or a command`, hint);
  return [name, { command: words[0]!, args: words.slice(1) }];
}

// What the configuration schema's `http` lists take (config-schema.ts), for the flags' own messages.
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?$/;
const ORIGIN = /^https?:\/\/(.*)$/i;

/**
 * The configuration with `--allowed-host`, `--allowed-origin` and `--trust-forwarded-proto` merged into its
 * `http` settings (the flags' entries first, then the file's).
 */
export function withHttpFlags(
  config: GatewayConfig,
  flags: GatewayFlags,
  hint: string | undefined,
): GatewayConfig {
  const hosts = flags['allowed-host'] ?? [];
  const origins = flags['allowed-origin'] ?? [];
  for (const host of hosts) {
    if (!HOST.test(host)) {
      throw usageError(
        `--allowed-host must be a Host header's value: a name or address, optionally with :PORT (gateway.example.com, [::1]:3000), got "${host}"`,
        hint,
      );
    }
  }
  for (const origin of origins) {
    const host = ORIGIN.exec(origin)?.[1];
    if (host === undefined || !HOST.test(host)) {
      throw usageError(
        `--allowed-origin must be an origin: http(s)://HOST[:PORT], no path nor trailing slash (https://gateway.example.com), got "${origin}"`,
        hint,
      );
    }
  }
  if (hosts.length === 0 && origins.length === 0 && !flags['trust-forwarded-proto']) return config;
  const file = config.http ?? {};
  const merged = (flagged: string[], listed: string[] | undefined) =>
    flagged.length === 0 && listed === undefined ? undefined : [...new Set([...flagged, ...(listed ?? [])])];
  const allowedHosts = merged(hosts, file.allowedHosts);
  const allowedOrigins = merged(origins, file.allowedOrigins);
  return {
    ...config,
    http: {
      ...file,
      ...(allowedHosts ? { allowedHosts } : {}),
      ...(allowedOrigins ? { allowedOrigins } : {}),
      ...(flags['trust-forwarded-proto'] ? { trustForwardedProto: true } : {}),
    },
  };
}

/** Reads the `--config` file, as a usage error naming the file when it cannot be read or is invalid. */
export function readConfigFile(path: string, hint: string | undefined): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read the gateway configuration ${path}: ${(error as Error).message}`, hint, {
      code: 'INVALID_CONFIG',
    });
  }
  try {
    return parseConfigText(text, path);
  } catch (error) {
    throw asUsageError(error, hint);
  }
}

/** A configuration problem as `GatewayError` details have it: read from a file, with its line and column. */
interface ConfigIssue {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** Where a problem is: `/upstreams/a/command (line 3, column 27)`, `line 2, column 5` (no path), `(root)`. */
function place({ path, line, column }: ConfigIssue): string {
  if (line === undefined) return path || '(root)';
  const position = `line ${line}, column ${column ?? 1}`;
  return path ? `${path} (${position})` : position;
}

/**
 * An invalid configuration as a usage error (exit 2): the file, then each problem once, on a line of its
 * own at its path, with the line and column of the value in the file (the GatewayError's message lists
 * them all on one line: not repeated).
 */
export function asUsageError(error: unknown, hint: string | undefined): unknown {
  if (!(error instanceof GatewayError)) return error;
  const { issues = [], source } =
    (error.details as { issues?: ConfigIssue[]; source?: string } | undefined) ?? {};
  if (issues.length === 0) return usageError(error.message, hint, { code: error.code });
  const problems = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return usageError(`invalid gateway configuration${source ? ` ${source}` : ''}: ${problems}`, hint, {
    code: error.code,
    details: { issues },
    detail: issues.map((issue) => `  ${place(issue)}: ${issue.message}`).join('\n'),
  });
}

/** The configuration: `base` (else the file's, if any), the flags merged in, checked as a whole. */
export function gatewayConfigOf(
  flags: GatewayFlags,
  command: string[] | undefined,
  hint: string | undefined,
  base?: GatewayConfig,
): GatewayConfig {
  const file =
    base ?? (flags.config === undefined ? { upstreams: {} } : readConfigFile(resolve(flags.config), hint));
  const upstreams: Record<string, UpstreamConfig> = { ...file.upstreams };
  let withCommand = 0;
  for (const flag of flags.upstream ?? []) {
    const [name, upstream] = parseUpstreamFlag(flag, command, hint);
    if (!flag.includes('=')) withCommand++;
    if (upstreams[name] !== undefined) throw usageError(`two upstreams are named "${name}"`, hint);
    upstreams[name] = upstream;
  }
  if (withCommand > 1) throw usageError('only one --upstream NAME may take the command after "--"', hint);
  if (command !== undefined && withCommand === 0) {
    throw usageError('"--" must follow an --upstream NAME (without =) that runs the command', hint);
  }
  for (const name of flags.trust ?? []) {
    const upstream = upstreams[name];
    if (!upstream) throw usageError(`--trust ${name}: there is no upstream of that name`, hint);
    upstreams[name] = { ...upstream, trusted: true };
  }
  if (Object.keys(upstreams).length === 0) {
    throw usageError(
      'the gateway needs an upstream: --config FILE, --upstream NAME=URL or --upstream NAME -- command',
      hint,
    );
  }
  const rules = [
    ...(flags.policy ?? []).map((flag) => parsePolicyFlag(flag, hint)),
    ...(file.policy?.rules ?? []),
  ];
  if (flags.default !== undefined && !ACTIONS.includes(flags.default)) {
    throw usageError(`--default must be allow, ask or deny, got "${flags.default}"`, hint);
  }
  const fallback = (flags.default as PolicyAction | undefined) ?? file.policy?.default;
  const config = withHttpFlags(
    {
      ...file,
      upstreams,
      policy: { rules, ...(fallback === undefined ? {} : { default: fallback }) },
    },
    flags,
    hint,
  );
  try {
    return checkConfig(config, flags.config ?? 'the command line');
  } catch (error) {
    throw asUsageError(error, hint);
  }
}
