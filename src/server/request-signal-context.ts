/**
 * The base of the contexts handed to resource readers, prompt getters and completers: their `signal` is their
 * request's, made when first read. Most handlers never read it, and on Node 20 an `AbortSignal` outlives V8's
 * young-generation collections (16 made at a time, ≈3 MB of them promoted per scavenge): one made per request
 * tripled a `resources/read`'s CPU under load. (A tool's context does the same, see `tool-context.ts`.)
 * @module
 */

/** What a context's signal comes from: the request's context, whose signal is made on first use. */
export interface SignalSource {
  readonly signal: AbortSignal;
}

export abstract class RequestSignalContext {
  readonly #request: SignalSource;

  constructor(request: SignalSource) {
    this.#request = request;
  }

  /** Aborted when the client cancels the request or the connection closes (as `server.close()` does). */
  get signal(): AbortSignal {
    return this.#request.signal;
  }
}
