/**
 * URL-mode elicitations a request needs done before it can go on (2025-11-25): the `-32042`
 * `URLElicitationRequiredError` a server answers with, its list of elicitations (each in URL mode, with
 * an `elicitationId`), and the `notifications/elicitation/complete` that may later name one of them.
 * The stateless era (2026-07-28) has neither: its URL elicitations go through multi round-trip requests.
 * @module
 */
import { ErrorCode, ProtocolError, type ErrorObject } from '../errors.js';
import { isJsonObject, type JsonObject } from '../jsonrpc.js';
import { jsonSize } from '../json-size.js';
import { MAX_PEER_ERROR_DATA, boundPeerError } from '../peer-error-bounds.js';
import { elicitParamsProblem } from './input-checks.js';

/** A URL-mode elicitation that must be completed before a request can be retried. */
export interface UrlElicitation {
  mode: 'url';
  /** Why the user should open the URL. */
  message: string;
  /** An `http:` or `https:` URL, opened by the user (never by the client on its own). */
  url: string;
  /** Names the elicitation in `notifications/elicitation/complete`. */
  elicitationId: string;
  _meta?: JsonObject;
}

/** The most elicitations one error may list (a server's list is read in linear time, and bounded). */
export const MAX_URL_ELICITATIONS = 32;

/** The most characters of an elicitation's URL (one a person is asked to open). */
export const MAX_URL_ELICITATION_URL = 8 * 1024;

/** What is wrong with a list of required URL elicitations, in words; undefined when nothing is. */
export function urlElicitationsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return 'elicitations must be a non-empty array';
  if (value.length > MAX_URL_ELICITATIONS)
    return `elicitations lists ${value.length}, more than ${MAX_URL_ELICITATIONS}`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!isJsonObject(item) || item.mode !== 'url') return `elicitations[${i}].mode must be "url"`;
    if (typeof item.elicitationId !== 'string' || item.elicitationId === '')
      return `elicitations[${i}].elicitationId must be a non-empty string`;
    if (typeof item.url === 'string' && item.url.length > MAX_URL_ELICITATION_URL)
      return `elicitations[${i}].url has ${item.url.length} characters, more than ${MAX_URL_ELICITATION_URL}`;
    const problem = elicitParamsProblem(item);
    if (problem) return `elicitations[${i}]: ${problem}`;
  }
  return undefined;
}

/**
 * `-32042`: the request cannot be processed until the user completes these URL-mode elicitations; retry
 * it after. A tool handler throws it, in any era: a 2025-11-25 client that declared `elicitation.url`
 * receives it as it is; a stateless-era client is asked the same elicitations through `input_required`;
 * any other client gets an `isError` result that says what it lacks. A client receives it as this class
 * (with `elicitations` checked); an error with code -32042 whose data does not fit stays a `ProtocolError`.
 */
export class UrlElicitationRequiredError extends ProtocolError {
  readonly elicitations: readonly UrlElicitation[];

  /**
   * Throws a TypeError for a list the spec does not allow (empty, not URL mode, no `elicitationId`, …).
   * `data`: more members of the error's `data` beside `elicitations` (the schema allows any).
   */
  constructor(elicitations: readonly UrlElicitation[], message?: string, data?: JsonObject) {
    const problem = urlElicitationsProblem(elicitations);
    if (problem) throw new TypeError(`UrlElicitationRequiredError: ${problem}`);
    const list = elicitations.map((e) => ({ ...e }));
    super(
      ErrorCode.UrlElicitationRequired,
      message ??
        `This request needs ${list.length === 1 ? 'a URL elicitation' : `${list.length} URL elicitations`} completed first`,
      { ...data, elicitations: list },
    );
    this.elicitations = list;
  }
}

/**
 * An error object received on the wire, as the error to throw (its message and data bounded: see
 * `boundPeerError`): a `UrlElicitationRequiredError` where it is one. A -32042 whose data is over the
 * bound keeps its `elicitations` (and so its type) when they are valid and fit in it: at most
 * {@link MAX_URL_ELICITATIONS}, each URL at most {@link MAX_URL_ELICITATION_URL} characters.
 */
export function receivedError(received: ErrorObject): ProtocolError {
  const error = boundPeerError(
    received,
    received.code === ErrorCode.UrlElicitationRequired ? keptElicitations : undefined,
  );
  if (error.code === ErrorCode.UrlElicitationRequired && isJsonObject(error.data)) {
    const elicitations = error.data.elicitations;
    if (urlElicitationsProblem(elicitations) === undefined)
      return new UrlElicitationRequiredError(
        elicitations as unknown as UrlElicitation[],
        error.message,
        error.data,
      );
  }
  return ProtocolError.fromObject(error);
}

/** Of a -32042's data over the bound: its `elicitations`, when they are valid and fit in it. */
function keptElicitations(data: unknown): JsonObject | undefined {
  if (!isJsonObject(data)) return undefined;
  const { elicitations } = data;
  if (urlElicitationsProblem(elicitations) !== undefined) return undefined;
  // `{"elicitations":…}`: 17 characters around the list.
  return jsonSize(elicitations) + 17 <= MAX_PEER_ERROR_DATA ? { elicitations } : undefined;
}
