// Calls held for approval, over HTTP: one caller may have 100 held, whatever their size, and its held calls
// may take 16 MiB of arguments; a call beyond is refused at once with an isError result that says why (never
// held), while another caller's call is still held. The
// decision API lists such approvals without their arguments (flagged, with their size and digest) in
// `GET /api/approvals`, the event stream's snapshot and its `approval.*` events, and `GET /api/approvals/ID`
// has them whole — so the approvals can always be listed and decided.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '../src/client/index.js';
import {
  LISTED_ARGUMENTS_BYTES,
  MAX_PENDING_APPROVALS_PER_CALLER,
  MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER,
  type GatewayHttpHandle,
} from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { GatewayEvents, servedApi } from './_gateway.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

let setup: ServedGateway | undefined;
let served: GatewayHttpHandle;

beforeAll(async () => {
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool(
    'write',
    { inputSchema: { type: 'object', properties: { content: { type: 'string' } } } },
    (args) => text(`wrote ${String((args as { content: string }).content.length)}`),
  );
  setup = await serveGatewayFor(server, { config: { policy: { default: 'ask' } }, model: false });
  ({ served } = setup);
});

afterAll(() => setup?.close());

const api = (path: string, body?: unknown) => servedApi(served, path, body);

interface Listed {
  id: string;
  arguments?: { content: string };
  argumentsOmitted?: true;
  argumentsBytes?: number;
  argumentsDigest: string;
}

/** A model client in a session of its own (handshake era: stateless-era callers are one anonymous caller). */
async function connectedModel(): Promise<Client> {
  const model = new Client({ name: 'model', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
  await model.connect(new StreamableHttpClientTransport({ url: served.url! }));
  onTestFinished(() => model.close());
  return model;
}

describe('approvals of one caller', () => {
  it(`refuses a caller's call beyond ${MAX_PENDING_APPROVALS_PER_CALLER} of its own held at once, and holds another caller's`, async () => {
    const flooder = await connectedModel();
    const events = new GatewayEvents(await api('/events'));
    const calls = Array.from({ length: MAX_PENDING_APPROVALS_PER_CALLER }, (_, i) =>
      flooder.callTool('files__write', { content: `${i}` }),
    );
    // Handled from when they are made: were the test to fail, closing the client rejects them.
    for (const call of calls) call.catch(() => undefined);
    const held: string[] = [];
    for (let i = 0; i < MAX_PENDING_APPROVALS_PER_CALLER; i++)
      held.push(((await events.next('approval.pending')).approval as Listed).id);
    const refused = await flooder.callTool('files__write', { content: 'one more' });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(
      /this caller has 100 calls waiting for approval already; try again later/,
    );
    // Another caller (a session of its own) is still asked about, not refused.
    const other = await connectedModel();
    const theirs = other.callTool('files__write', { content: 'mine' });
    const pending = await events.next('approval.pending');
    expect((pending.approval as { arguments?: unknown }).arguments).toEqual({ content: 'mine' });
    await api(`/approvals/${(pending.approval as Listed).id}/approve`, {});
    expect((await theirs).isError).toBeFalsy();
    for (const id of held) await api(`/approvals/${id}/deny`, {});
    const results = await Promise.all(calls);
    expect(results.every((result) => result.isError === true)).toBe(true);
  });
});

describe('approvals of calls with large arguments', () => {
  it("refuses a caller's call beyond its budget at once, and lists the held ones without their arguments", async () => {
    const model = new Client({ name: 'model', version: '1.0.0' });
    await model.connect(new StreamableHttpClientTransport({ url: served.url! }));
    const events = new GatewayEvents(await api('/events'));
    try {
      const content = 'x'.repeat(3_500_000);
      const held = Math.floor(MAX_PENDING_ARGUMENTS_BYTES_PER_CALLER / (content.length + 20));
      const calls = Array.from({ length: held }, (_, i) =>
        model.callTool('files__write', { content: `${i}${content}` }),
      );
      for (let i = 0; i < held; i++) await events.next('approval.pending');
      // One more: refused at once, saying why, never held.
      const refused = await model.callTool('files__write', { content });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/waiting for approval would hold more than 16 MiB/);

      const listing = await api('/approvals');
      expect(listing.status).toBe(200);
      const body = await listing.text();
      expect(body.length).toBeLessThan(held * 2 * LISTED_ARGUMENTS_BYTES);
      const { approvals } = JSON.parse(body) as { approvals: Listed[] };
      expect(approvals).toHaveLength(held);
      for (const approval of approvals) {
        expect(approval.arguments).toBeUndefined();
        expect(approval.argumentsOmitted).toBe(true);
        expect(approval.argumentsBytes).toBeGreaterThan(3_500_000);
        expect(approval.argumentsDigest).toMatch(/^sha256:/);
      }
      // A new event stream's snapshot lists them the same way.
      const again = new GatewayEvents(await api('/events'));
      const snapshot = await again.next('snapshot');
      await again.close();
      expect((snapshot.approvals as Listed[]).map((a) => a.argumentsOmitted)).toEqual(
        approvals.map(() => true),
      );

      // One approval whole, then decided with the digest of what was read.
      const first = approvals[0]!;
      const whole = (await (await api(`/approvals/${first.id}`)).json()) as { approval: Listed };
      expect(whole.approval.arguments?.content.length).toBeGreaterThan(3_500_000);
      const decided = await api(`/approvals/${first.id}/approve`, { argumentsDigest: first.argumentsDigest });
      expect(decided.status).toBe(200);
      expect(((await decided.json()) as { approval: Listed }).approval.argumentsOmitted).toBe(true);
      const event = await events.next('approval.decided');
      expect((event.approval as Listed).argumentsOmitted).toBe(true);
      for (const approval of approvals.slice(1)) await api(`/approvals/${approval.id}/deny`, {});
      const results = await Promise.all(calls);
      expect(results.filter((result) => !result.isError)).toHaveLength(1);
    } finally {
      await events.close();
      await model.close();
    }
  });
});
