/**
 * The URL-mode elicitations a server has asked of this client (2025-11-25): the ids of its
 * `elicitation/create` requests in URL mode and of the elicitations its `-32042` errors listed. A
 * `notifications/elicitation/complete` reaches `onElicitationComplete` only for one of these, once: the
 * spec has a client ignore unknown and already completed ids. The most recent `MAX_EXPECTED` are kept.
 * @module
 */
import { keepNewest } from '../protocol/keep-newest.js';
import { UrlElicitationRequiredError } from '../protocol/types/url-elicitation.js';

/** How many elicitation ids a client remembers (the oldest is forgotten first). */
export const MAX_EXPECTED = 1024;

export class UrlElicitations {
  readonly #expected = new Set<string>();

  /** Remembers an id the server named; returns whether it was new. */
  expect(elicitationId: string): boolean {
    const expected = this.#expected;
    const known = expected.delete(elicitationId);
    expected.add(elicitationId);
    keepNewest(expected, MAX_EXPECTED);
    return !known;
  }

  /** Forgets an id (an elicitation the client did not accept never started). */
  forget(elicitationId: string): void {
    this.#expected.delete(elicitationId);
  }

  /** Remembers the ids a request's error listed, when it is a `UrlElicitationRequiredError`. */
  sawError(error: unknown): void {
    if (error instanceof UrlElicitationRequiredError)
      for (const { elicitationId } of error.elicitations) this.expect(elicitationId);
  }

  /** Whether `elicitationId` was expected and not completed yet; it is not expected any more. */
  complete(elicitationId: unknown): elicitationId is string {
    return typeof elicitationId === 'string' && this.#expected.delete(elicitationId);
  }
}
