/**
 * Local errors of the server layer (bad definitions, duplicate names, misuse of the handler context).
 * @module
 */
import { ToolwireError } from '../protocol/errors.js';

export class ServerError extends ToolwireError {
  override name = 'ServerError';
}
