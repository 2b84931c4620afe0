/**
 * The three kinds of client input a stateless-era server may ask for inside an `InputRequiredResult`
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`): the keys they travel under, the client
 * capabilities each needs, and what a well-formed answer looks like.
 * @module
 */
import { ErrorCode, ProtocolError } from '../../protocol/errors.js';
import { echoedName } from '../../protocol/echoed-name.js';
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.js';
import { inputResultProblem, missingCapabilities } from '../../protocol/types/input-checks.js';

export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** Where the rule for what each question needs of the client lives (both ends use it). */
export { missingCapabilities };

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
    `Invalid params: inputResponses["${echoedName(key)}"] is not a valid ${method} result: ${problem ?? 'it must be an object'}`,
  );
}

/** Whether a handler's outcome is an `InputRequiredResult` (the request must be retried with input). */
export function isInputRequired(value: unknown): value is InputRequiredResult {
  return isJsonObject(value) && value.resultType === 'input_required';
}
