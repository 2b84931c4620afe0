/**
 * Reads the body of a node:http request that was not read whole (large or undeclared POSTs) into one
 * buffer, with a plain `data` listener: one copy per chunk and nothing else. A web stream over the node
 * stream cost a promise and a kept chunk per chunk, so 64 KiB sent in one-byte chunks stalled the event
 * loop ≈120 ms (and 4 MiB of them would have held 4 million chunk objects).
 *
 * The buffer is sized to the declared `Content-Length` (checked against the limit before: see
 * `read-body.ts`), else starts small and doubles, never past the limit. Past the limit the rest of the
 * body is read and dropped (as after cancelling its web stream; the connection lives on for the 413) and
 * the promise rejects with `BodyTooLargeError`; a request that ends before its body did rejects too.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError } from './read-body.js';

/** The first size of the buffer of a body that declares none. */
const FIRST_BYTES = 16 * 1024;

export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0));
  if (req.destroyed) return Promise.reject(new Error('The request ended before its body did'));
  return new Promise<Uint8Array>((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    let buffer = new Uint8Array(
      Number.isSafeInteger(declared) && declared >= 0 && declared <= maxBytes
        ? declared
        : Math.min(maxBytes, FIRST_BYTES),
    );
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('close', onFailure);
    };
    const onData = (chunk: Buffer) => {
      const end = size + chunk.byteLength;
      if (end > maxBytes) {
        stop();
        req.resume(); // the rest is read and dropped, as a cancelled web stream did: the 413 still goes out
        reject(new BodyTooLargeError(`Body exceeds ${maxBytes} bytes`));
        return;
      }
      if (end > buffer.byteLength) {
        const grown = new Uint8Array(Math.min(maxBytes, Math.max(end, buffer.byteLength * 2)));
        grown.set(buffer.subarray(0, size));
        buffer = grown;
      }
      buffer.set(chunk, size);
      size = end;
    };
    const onEnd = () => {
      stop();
      resolve(buffer.subarray(0, size));
    };
    const onFailure = () => {
      stop();
      reject(new Error('The request ended before its body did'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onFailure);
    req.once('close', onFailure);
  });
}
