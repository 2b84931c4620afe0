// Upstream attacks through an HTTP upstream's redirects: a call answered with a 307 to another origin is
// followed without a header of the gateway's (its API key).
import http from 'node:http';
import { beside, gateway, shown, textOf } from '../lib/upstream-gateway.mjs';

/** A loopback HTTP server answering `handle(message, req, res)` for each JSON-RPC POST; records requests. */
async function jsonRpcServer(handle) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ url: req.url, method: req.method, headers: req.headers });
      if (req.method !== 'POST') return res.writeHead(405).end();
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        return res.writeHead(400).end();
      }
      if (message.id === undefined) return res.writeHead(202).end();
      const answer = (result) =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'upstream-session' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      return handle(message, answer, res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

export default [
  {
    name: 'redirect-headers',
    title: "an HTTP upstream answering a call with a 307 to another origin: the gateway's API key stays home",
    target: false,
    async run(ctx) {
      const elsewhere = await jsonRpcServer((message, answer) =>
        answer({ content: [{ type: 'text', text: 'answered elsewhere' }] }),
      );
      const upstream = await jsonRpcServer((message, answer, res) => {
        if (message.method === 'initialize') {
          return answer({
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: { name: 'redirecting', version: '1' },
          });
        }
        if (message.method === 'tools/list') {
          return answer({ tools: [{ name: 'away', inputSchema: { type: 'object' } }] });
        }
        if (message.method === 'tools/call') return res.writeHead(307, { location: elsewhere.url }).end();
        return answer({});
      });
      const gw = await gateway({
        web: { url: upstream.url, protocolVersion: '2025-11-25', headers: { 'X-Api-Key': 'gateway-key' } },
      });
      try {
        await beside(ctx, gw, async () => {
          for (let i = 0; i < 20; i++) {
            ctx.tries++;
            const answer = await gw.call('web__away', { i });
            if (textOf(answer) !== 'answered elsewhere') ctx.fail(`the call got ${shown(answer)}`);
          }
        });
        const home = upstream.seen.filter((s) => s.headers['x-api-key'] === 'gateway-key').length;
        const leaked = elsewhere.seen.filter((s) => s.headers['x-api-key'] !== undefined).length;
        ctx.check(home > 0, 'the upstream never got the key it was configured with');
        ctx.check(
          leaked === 0,
          () =>
            `the other origin got the gateway's X-Api-Key on ${leaked} of ${elsewhere.seen.length} requests`,
        );
      } finally {
        await gw.close();
        await upstream.close();
        await elsewhere.close();
      }
    },
  },
];
