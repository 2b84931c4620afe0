/**
 * Reads and checks a gateway configuration: JSON text (a syntax error names its line and column), then
 * the schema (each problem names its JSON path, e.g. `/upstreams/files/command`), then what a schema
 * cannot say (two upstreams with the same prefix, `oauth` with `bearerEnv`). Every problem is reported at once, as a GatewayError
 * `INVALID_CONFIG` whose `details.issues` list them.
 * @module
 */
import { LocalErrorCode, compileJsonSchema, formatIssues, type ValidationIssue } from '../index.js';
import { GATEWAY_CONFIG_SCHEMA } from './config-schema.js';
import { isHttpUpstream, type GatewayConfig } from './gateway-config.js';
import { GatewayError } from './gateway-error.js';

let validator: ReturnType<typeof compileJsonSchema> | undefined;

function invalid(source: string, issues: ValidationIssue[]): GatewayError {
  return new GatewayError(
    LocalErrorCode.InvalidConfig,
    `Invalid gateway configuration (${source}): ${formatIssues(issues)}`,
    { details: { source, issues } },
  );
}

/** Line and column (1-based) of a character offset in `text`. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Parses configuration JSON; a syntax error says where (`line 3, column 7`). */
export function parseConfigText(text: string, source = 'config'): GatewayConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = /position (\d+)/.exec(message)?.[1];
    const where =
      offset === undefined
        ? ''
        : (({ line, column }) => `line ${line}, column ${column}: `)(lineAndColumn(text, Number(offset)));
    throw invalid(source, [{ path: '', message: `${where}not valid JSON (${message})` }]);
  }
  return checkConfig(value, source);
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
