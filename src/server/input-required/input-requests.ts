/**
 * The three kinds of client input a stateless-era server may ask for inside an `InputRequiredResult`
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`): the keys they travel under, the client
 * capabilities each needs, and what a well-formed answer looks like.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../../protocol/types/lifecycle.js';
import { inputResultProblem } from '../../protocol/types/input-checks.js';

export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** One entry of `inputRequests`. */
export interface InputRequest {
  method: InputMethod;
  params?: JsonObject;
}

/** A stateless-era `InputRequiredResult` (before `resultType` and `serverInfo` are added). */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
}

const PREFIX: Record<InputMethod, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

/** The key of the `n`th (1-based) input a call asks for: `elicit-1`, `sample-2`, `roots-3`. */
export function inputKey(method: InputMethod, n: number): string {
  return `${PREFIX[method]}-${n}`;
}

/** The method a key was made for, or undefined for a key this server never makes. */
export function methodOfKey(key: string): InputMethod | undefined {
  const match = /^([a-z]+)-[1-9][0-9]*$/.exec(key);
  return (Object.keys(PREFIX) as InputMethod[]).find((method) => PREFIX[method] === match?.[1]);
}

const present = (value: unknown) => value !== undefined && value !== null;
const sub = (value: unknown, key: string) => (isJsonObject(value) ? value[key] : undefined);

/**
 * The capabilities a request for `method` needs that `capabilities` lacks (the `requiredCapabilities`
 * of a -32021 error), or undefined when the client declared everything needed. Elicitation: `{}` means
 * form mode only; URL mode needs `elicitation.url`. Sampling with `tools` or `toolChoice` needs
 * `sampling.tools`.
 */
export function missingCapabilities(
  method: InputMethod,
  params: JsonObject | undefined,
  capabilities: ClientCapabilities,
): ClientCapabilities | undefined {
  switch (method) {
    case 'elicitation/create': {
      const declared = capabilities.elicitation;
      if (!present(declared)) return { elicitation: {} };
      if (params?.mode === 'url')
        return present(sub(declared, 'url')) ? undefined : { elicitation: { url: {} } };
      const formOnly = !present(sub(declared, 'form')) && !present(sub(declared, 'url'));
      return formOnly || present(sub(declared, 'form')) ? undefined : { elicitation: { form: {} } };
    }
    case 'sampling/createMessage': {
      const declared = capabilities.sampling;
      if (!present(declared)) return { sampling: {} };
      const usesTools = params?.tools !== undefined || params?.toolChoice !== undefined;
      return usesTools && !present(sub(declared, 'tools')) ? { sampling: { tools: {} } } : undefined;
    }
    case 'roots/list':
      return present(capabilities.roots) ? undefined : { roots: {} };
  }
}

/** Whether `value` names one of the three kinds of client input. */
export function isInputMethod(value: unknown): value is InputMethod {
  return value === 'elicitation/create' || value === 'sampling/createMessage' || value === 'roots/list';
}

/**
 * Throws -32602 naming what is wrong when an `inputResponses` entry is not a result of `method`
 * (ElicitResult, CreateMessageResult, ListRootsResult).
 */
export function checkInputResponse(
  key: string,
  method: InputMethod,
  value: unknown,
): asserts value is JsonObject {
  const problem = inputResultProblem(method, value);
  if (problem === undefined && isJsonObject(value)) return;
  throw new ProtocolError(
    ErrorCode.InvalidParams,
    `Invalid params: inputResponses["${key}"] is not a valid ${method} result: ${problem ?? 'it must be an object'}`,
  );
}

/** Whether a handler's outcome is an `InputRequiredResult` (the request must be retried with input). */
export function isInputRequired(value: unknown): value is InputRequiredResult {
  return isJsonObject(value) && value.resultType === 'input_required';
}
