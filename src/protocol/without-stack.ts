/**
 * Errors made at the rate a peer sends what is refused (an answer to an id never sent, a line that is not
 * JSON, the answer to a ping a server does not read): capturing a stack for each cost about as much as the
 * rest of the refusal, and the stack would only name the engine's own frames. They are made without one.
 * @module
 */

/** What `make` returns, with no stack captured by the errors it constructs. */
export function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
