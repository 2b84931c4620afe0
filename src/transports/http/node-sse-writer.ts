/**
 * The node adapter's native path for SSE answers: the events of an {@link SseReply} go from its sink
 * straight to the node:http response, with no web `Response` or `ReadableStream` between them. A stream
 * that is complete when the handler returns it (a tool that answers at once: the usual POST) goes out
 * with its headers in one write; a live one gets its headers and what was written in the same turn of the
 * event loop together at the end of that turn, then each event as it is written, while the socket takes
 * them (then from the next `drain`). The framing is node:http's, as for a web
 * `Response` body: chunked, the stream ending with the response.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { ClientWatch, SseReply } from './http-exchange.js';

/** Writes an SSE reply to `res`; `client` tells when the client goes away (the sink is then cancelled). */
export function writeSseReply(reply: SseReply, res: ServerResponse, client: ClientWatch): void {
  const { sink } = reply;
  res.writeHead(reply.status, reply.headers.values as Record<string, string>);
  // Held until the end of this turn of the event loop: a stream that starts live (a session's POST opens
  // with its priming event) but whose answer comes in the same turn (a tool that answers at once) still
  // goes out as one write, not a write for the headers and first event and another for the rest.
  res.cork();
  // `headersSent` is true from `writeHead` on, before anything went out: what was written is counted here.
  let written = false;
  sink.pipeTo({
    write: (chunk) => {
      written = true;
      return res.write(chunk);
    },
    end: (last) => {
      if (last === undefined) res.end();
      else res.end(last);
    },
  });
  if (res.writableEnded) return; // end() uncorked the socket and sent it all
  if (!written) res.flushHeaders(); // a live stream's headers go with this turn, as a web Response's would
  setImmediate(() => {
    if (!res.writableEnded) res.uncork();
  });
  res.on('drain', () => sink.resume());
  if (client.gone) sink.disconnect();
  else client.onGone(() => sink.disconnect());
}
