/**
 * Local errors of the client layer: version mismatch, invalid results, output that breaks its schema,
 * plus the engine's timeouts and closed connections (which share the same `ToolwireError` base).
 * @module
 */
import { ToolwireError } from '../protocol/errors.js';

export class ClientError extends ToolwireError {
  override name = 'ClientError';
}
