// Well-formed MCP over HTTP for the attacks (fetch, with a deadline on every exchange): POST a message,
// read the JSON or SSE answer whole, open a handshake-era session.

export const HANDSHAKE_VERSION = '2025-11-25';
export const STATELESS_VERSION = '2026-07-28';

/** The stateless era's request `_meta`. */
export const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'toolwire-attack', version: '1.0.0' },
};

/** The JSON-RPC messages of a body: one JSON value (a message or a batch), or the `data` of SSE events. */
export function messagesOf(contentType, body) {
  if (body === '') return [];
  if ((contentType ?? '').includes('text/event-stream')) {
    const out = [];
    for (const block of body.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data !== '') out.push(JSON.parse(data));
    }
    return out;
  }
  const value = JSON.parse(body);
  return Array.isArray(value) ? value : [value];
}

/**
 * POSTs `body` (a message, or a string sent as is) and reads the whole answer within `timeoutMs`. Resolves
 * { status, headers, text, messages } (messages: undefined when the body does not parse).
 */
export async function post(
  url,
  body,
  { session, version = HANDSHAKE_VERSION, headers = {}, timeoutMs = 10_000 } = {},
) {
  const message = typeof body === 'string' ? undefined : body;
  const all = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    ...(session ? { 'mcp-session-id': session } : {}),
    ...(version === STATELESS_VERSION && message && !Array.isArray(message) && message.method
      ? {
          'mcp-method': message.method,
          ...(typeof message.params?.name === 'string' ? { 'mcp-name': message.params.name } : {}),
        }
      : {}),
    ...headers,
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: all,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let messages;
  try {
    messages = messagesOf(response.headers.get('content-type'), text);
  } catch {
    messages = undefined;
  }
  return { status: response.status, headers: response.headers, text, messages };
}

/** The response to request `id` among `messages` (undefined if none). */
export function answerTo(messages, id) {
  return messages?.find((m) => m.id === id && m.method === undefined);
}

/** initialize + notifications/initialized; resolves the session id (undefined in stateless mode). */
export async function openSession(
  url,
  { headers = {}, version = HANDSHAKE_VERSION, timeoutMs = 10_000 } = {},
) {
  const init = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: 'toolwire-attack', version: '1.0.0' },
      },
    },
    { headers, version, timeoutMs },
  );
  if (init.status !== 200 || !answerTo(init.messages, 0)?.result)
    throw new Error(`initialize: ${init.status} ${init.text.slice(0, 200)}`);
  const session = init.headers.get('mcp-session-id') ?? undefined;
  await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { session, headers, version, timeoutMs },
  );
  return session;
}

/** DELETE a session (its end); resolves the status. */
export async function endSession(url, session, headers = {}) {
  const response = await fetch(url, {
    method: 'DELETE',
    headers: { 'mcp-session-id': session, 'mcp-protocol-version': HANDSHAKE_VERSION, ...headers },
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  return response.status;
}
