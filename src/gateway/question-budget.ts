/**
 * How many of an upstream's questions (elicitation, sampling, roots) the gateway relays to one caller at
 * once: at most `MAX_OPEN_QUESTIONS` per caller connection and upstream (a handshake-era caller is asked
 * them as requests), and as many held unanswered for one stateless-era request (each round's
 * `inputRequests` lists them all, held-run.ts). A question past it is not relayed: the upstream gets
 * -31429 at once, `data: { limit: 'questions', max }`, and may ask again once one is answered. Before, an
 * upstream asking a thousand questions at once had them all put to the caller (the gateway's client takes
 * up to 1,000 at once from each upstream) — a thousand forms before a person, or a thousand model calls.
 * @module
 */
import { ErrorCode, ProtocolError } from '../index.js';

/** At most this many of one upstream's questions are open with one caller (a connection, a request). */
export const MAX_OPEN_QUESTIONS = 16;

/** What the upstream gets for a question past `MAX_OPEN_QUESTIONS`. */
export function tooManyQuestions(method: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.RateLimited,
    `Too many questions: the gateway relays at most ${MAX_OPEN_QUESTIONS} of a server's questions (elicitation, sampling, roots) to one caller at once, and ${MAX_OPEN_QUESTIONS} are waiting for its answers; ${method} was not relayed (ask again once one is answered)`,
    { limit: 'questions', max: MAX_OPEN_QUESTIONS },
  );
}

export class QuestionBudget {
  /** Per holder (a caller's connection, or a request's own object), the questions open per upstream. */
  readonly #open = new WeakMap<object, Map<string, number>>();

  /**
   * A place for one more question of `upstream` relayed to `holder`: its release (to call once the
   * question is answered or withdrawn; calling it again does nothing), or undefined past the cap.
   */
  take(holder: object, upstream: string): (() => void) | undefined {
    let counts = this.#open.get(holder);
    const open = counts?.get(upstream) ?? 0;
    if (open >= MAX_OPEN_QUESTIONS) return undefined;
    if (!counts) {
      counts = new Map<string, number>();
      this.#open.set(holder, counts);
    }
    counts.set(upstream, open + 1);
    const held = counts;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (held.get(upstream) ?? 1) - 1;
      if (left > 0) held.set(upstream, left);
      else held.delete(upstream);
    };
  }
}
