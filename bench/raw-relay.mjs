// The floor of a relay that parses and serializes at each hop: a hand-written stdio relay with no library,
// no validation, no policy, no audit — what the gateway does for a tools/call at the least. It answers
// `initialize` itself, spawns its upstream (the command after `--`), and for each `tools/call` named
// `fx__<tool>` sends `<tool>` upstream as a 2026-07-28 request (the `_meta` the gateway's client sends),
// then answers with the upstream's result less `resultType` and its `_meta` (as the gateway's client
// hands it on). Lines written in one tick go out in one write, as toolwire's stdio transports do.
//   node bench/raw-relay.mjs -- node bin/toolwire.mjs serve bench/fixture-server.mjs
import { spawn } from 'node:child_process';

const dash = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(dash + 1);
const upstream = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, sampling: {}, roots: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'toolwire-gateway', version: '0.1.0' },
  'io.modelcontextprotocol/logLevel': 'debug',
};
/** Upstream id → the downstream request's id. */
const pending = new Map();
let nextId = 0;

/** A line writer: the lines of one tick in one write. */
function writer(stream) {
  let batch = '';
  const flush = () => {
    stream.write(batch);
    batch = '';
  };
  return (line) => {
    if (batch === '') process.nextTick(flush);
    batch += line + '\n';
  };
}
const down = writer(process.stdout);
const up = writer(upstream.stdin);

/** Calls `onLine` with each line of a stream. */
function lines(stream, onLine) {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buffer += chunk;
    let start = 0;
    let nl;
    while ((nl = buffer.indexOf('\n', start)) !== -1) {
      if (nl > start) onLine(buffer.slice(start, nl));
      start = nl + 1;
    }
    buffer = buffer.slice(start);
  });
}

lines(process.stdin, (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return; // notifications
  if (message.method === 'initialize') {
    const result = {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'raw-relay', version: '1.0.0' },
    };
    down(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  } else if (message.method === 'tools/call') {
    const id = nextId++;
    pending.set(id, message.id);
    const params = { name: message.params.name.slice(4), arguments: message.params.arguments, _meta: META };
    up(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }));
  } else {
    down(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      }),
    );
  }
});

lines(upstream.stdout, (line) => {
  const message = JSON.parse(line);
  const id = pending.get(message.id);
  if (id === undefined) return;
  pending.delete(message.id);
  const { resultType: _type, _meta: _info, ...result } = message.result ?? {};
  down(
    JSON.stringify(
      message.error ? { jsonrpc: '2.0', id, error: message.error } : { jsonrpc: '2.0', id, result },
    ),
  );
});
process.stdin.on('end', () => upstream.stdin.end());
upstream.on('exit', () => process.exit(0));
