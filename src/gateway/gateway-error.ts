/**
 * Local errors of the gateway: a configuration that does not validate, and decisions the approvals refuse
 * (an unknown id, one already settled, arguments that differ from what was approved).
 * @module
 */
import { ToolwireError } from '../index.js';

export class GatewayError extends ToolwireError {
  override name = 'GatewayError';
}
