/**
 * Reads and checks a gateway configuration: JSON text (a syntax error names its line and column), then
 * the schema (each problem names its JSON path, e.g. `/upstreams/files/command`), then what a schema
 * cannot say (two upstreams with the same prefix, `oauth` with `bearerEnv`). Every problem is reported at
 * once, as a GatewayError `INVALID_CONFIG` whose `details.issues` list them (`ConfigIssue`: read from text,
 * each with the line and column of the value at its path).
 * @module
 */
import { LocalErrorCode, compileJsonSchema, type ValidationIssue } from '../index.js';
import { GATEWAY_CONFIG_SCHEMA } from './config-schema.js';
import { isHttpUpstream, type GatewayConfig } from './gateway-config.js';
import { GatewayError } from './gateway-error.js';
import { jsonPositions, type TextPosition } from './json-positions.js';

let validator: ReturnType<typeof compileJsonSchema> | undefined;

/**
 * A configuration problem: the JSON Pointer of the value (`''`: the whole), what is wrong with it, and,
 * for a configuration read from text (`parseConfigText`), the line and column (1-based) where that value
 * is, or, for text that is no JSON, where it breaks.
 */
interface ConfigIssue extends ValidationIssue {
  line?: number;
  column?: number;
}

/** How many problems the error's message names (`details.issues` has them all). */
const MAX_NAMED = 10;

/** Where a problem is: its path and position (`/a/b (line 3, column 7)`, `line 1, column 1`), or its path. */
function issuePlace(issue: ConfigIssue): string {
  if (issue.line === undefined) return issue.path;
  const position = `line ${issue.line}, column ${issue.column ?? 1}`;
  return issue.path === '' ? position : `${issue.path} (${position})`;
}

function invalid(source: string, issues: ConfigIssue[]): GatewayError {
  const named = issues.slice(0, MAX_NAMED).map((issue) => {
    const place = issuePlace(issue);
    return place === '' ? issue.message : `${place}: ${issue.message}`;
  });
  if (issues.length > MAX_NAMED) named.push(`(and ${issues.length - MAX_NAMED} more)`);
  return new GatewayError(
    LocalErrorCode.InvalidConfig,
    `Invalid gateway configuration (${source}): ${named.join('; ')}`,
    { details: { source, issues } },
  );
}

function placed(issue: ValidationIssue, position: TextPosition | undefined): ConfigIssue {
  return position === undefined ? issue : { ...issue, line: position.line, column: position.column };
}

/**
 * Parses configuration JSON and checks it (`checkConfig`); each problem has the line and column of the
 * value at its path, a syntax error those of where the text breaks.
 */
export function parseConfigText(text: string, source = 'config'): GatewayConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = /position (\d+)/.exec(message)?.[1];
    const issue = { path: '', message: `not valid JSON (${message})` };
    const position =
      offset === undefined ? undefined : lineAndColumn(text, Math.min(Number(offset), text.length));
    throw invalid(source, [placed(issue, position)]);
  }
  try {
    return checkConfig(value, source);
  } catch (error) {
    const issues = (error as { details?: { issues?: ValidationIssue[] } }).details?.issues;
    if (!(error instanceof GatewayError) || issues === undefined) throw error;
    const positions = jsonPositions(
      text,
      issues.map((issue) => issue.path),
    );
    throw invalid(
      source,
      issues.map((issue) => placed(issue, positions.get(issue.path))),
    );
  }
}

/** Line and column (1-based) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): TextPosition {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Checks a configuration value against the schema and the rules beyond it; returns it typed. */
export function checkConfig(value: unknown, source = 'config'): GatewayConfig {
  validator ??= compileJsonSchema(GATEWAY_CONFIG_SCHEMA);
  const outcome = validator(value);
  if (!outcome.ok) throw invalid(source, outcome.issues);
  const config = value as GatewayConfig;
  const issues: ValidationIssue[] = [];
  const owners = new Map<string, string>();
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    const prefix = upstream.prefix ?? name;
    const owner = owners.get(prefix);
    if (owner !== undefined) {
      issues.push({
        path: `/upstreams/${name}${upstream.prefix === undefined ? '' : '/prefix'}`,
        message: `has the prefix "${prefix}" of upstream "${owner}": give one of them another prefix`,
      });
    } else owners.set(prefix, name);
    if (isHttpUpstream(upstream) && upstream.oauth !== undefined && upstream.bearerEnv !== undefined) {
      issues.push({
        path: `/upstreams/${name}/oauth`,
        message: 'is given with bearerEnv: the OAuth client gets the tokens, so give one of them',
      });
    }
  }
  if (issues.length > 0) throw invalid(source, issues);
  return config;
}
