/**
 * The stdio transports (`toolwire/stdio`): newline-delimited JSON over a child process's
 * stdin and stdout. Everything exported here is public API.
 * @module toolwire/stdio
 */
export { StdioServerTransport, type StdioServerTransportOptions } from './stdio-server-transport.js';
export {
  StdioClientTransport,
  type StdioClientTransportOptions,
  type ExitStatus,
} from './stdio-client-transport.js';
export { SAFE_ENV_VARS } from './child-environment.js';
export { TransportError } from '../transport-error.js';
