/**
 * `notifications/resources/updated` coalesced per subscriber and URI: while one for a URI is being sent to
 * a subscriber (a session, a `subscriptions/listen` stream), further updates of that URI for it are one
 * more, sent once the first is written. An update says only that the resource changed, for the client to
 * read it again, so one that follows every change is all a subscriber needs; each subscriber holds at most
 * two per URI it subscribed (one being written, one waiting). Before, a server (or a gateway relaying an
 * upstream) sending 100,000 updates for one URI sent 100,000 to every subscriber, queued on each.
 * @module
 */

/** One subscriber's update of one URI: `again` once another came while it was being sent. */
interface Sending {
  again: boolean;
}

export class CoalescedUpdates {
  /** Per subscriber (its session or stream object), the URIs being sent to it. */
  readonly #sending = new WeakMap<object, Map<string, Sending>>();

  /**
   * Sends `uri`'s update to `subscriber` with `write` now, or, while one is being sent, once more after
   * it. Resolves once this update is handed on (to `write`, or to the send under way); never rejects.
   */
  send(subscriber: object, uri: string, write: () => Promise<void>): Promise<void> {
    let uris = this.#sending.get(subscriber);
    const under = uris?.get(uri);
    if (under) {
      under.again = true;
      return Promise.resolve();
    }
    if (!uris) {
      uris = new Map();
      this.#sending.set(subscriber, uris);
    }
    const sending: Sending = { again: false };
    uris.set(uri, sending);
    return this.#run(uris, uri, sending, write);
  }

  /** Writes, and writes again for as long as another update came meanwhile. */
  async #run(
    uris: Map<string, Sending>,
    uri: string,
    sending: Sending,
    write: () => Promise<void>,
  ): Promise<void> {
    try {
      do {
        sending.again = false;
        await write().catch(() => undefined);
      } while (sending.again);
    } finally {
      uris.delete(uri);
    }
  }
}
