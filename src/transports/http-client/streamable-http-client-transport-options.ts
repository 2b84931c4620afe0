/**
 * How a Streamable HTTP client transport is set up: the HTTP client options, plus the protocol version
 * to send from the start, how broken SSE streams are resumed, and the stateless era's tool definitions.
 * @module
 */
import type { HttpClientOptions } from './http-client-options.js';
import type { ReconnectOptions } from './reconnect-policy.js';

export interface StreamableHttpClientTransportOptions extends HttpClientOptions {
  /**
   * The `MCP-Protocol-Version` header to send from the start. Normally left out: the transport reads
   * the negotiated version from the InitializeResult that passes through it and sends it afterwards.
   */
  protocolVersion?: string;
  /** How SSE streams that end or break before their response arrived are resumed. */
  reconnect?: ReconnectOptions;
  /**
   * Stateless era: the tool definitions `Mcp-Param-*` headers are built from (a tool's `inputSchema` by
   * name). Default: the transport remembers the schemas of the `tools/list` results it carries.
   */
  toolSchemas?: (name: string) => object | undefined;
}
