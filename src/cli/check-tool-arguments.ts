/**
 * Before `toolwire call` sends anything, the arguments are checked against the tool's input schema as the
 * server listed it: arguments that do not match are the user's mistake, a usage error (exit 2) that says
 * what is wrong and what the tool takes, and nothing is run. A schema the CLI cannot compile (another
 * dialect, a `$ref` it cannot resolve) is left to the server to apply.
 * @module
 */
import { compileJsonSchema, formatIssues, type JsonObject, type Tool, type Validator } from '../index.js';
import { summarizeSchema } from './describe-tool.js';
import { usageError } from './exit-code.js';

/** The tool's input validator, or undefined when its schema does not compile here. */
function inputValidator(tool: Tool): Validator<unknown> | undefined {
  try {
    return compileJsonSchema(tool.inputSchema as Parameters<typeof compileJsonSchema>[0]);
  } catch {
    return undefined;
  }
}

/** Throws a usage error (`INVALID_ARGUMENTS`, exit 2) when `args` do not match the tool's input schema. */
export function checkToolArguments(tool: Tool, args: JsonObject, hint: string): void {
  const validate = inputValidator(tool);
  if (!validate) return;
  const outcome = validate(args);
  if (outcome.ok) return;
  const issues = formatIssues(outcome.issues);
  throw usageError(`the arguments do not match the input schema of tool ${tool.name}: ${issues}`, hint, {
    code: 'INVALID_ARGUMENTS',
    detail: `${tool.name} takes: ${summarizeSchema(tool.inputSchema)}\nNothing was run.`,
    details: {
      tool: tool.name,
      issues: outcome.issues.map((issue) => ({ path: issue.path, message: issue.message })),
      arguments: args,
    },
  });
}
