// The decision API's event streams last only as long as their credentials, and no caller takes every slot.
// A stream of a console session ends when the session is signed out (nothing raised afterwards reaches it),
// when its cookie expires, and — asked again at each keep-alive — when the session was ended where this
// instance heard nothing of it or a verifier no longer accepts the token. The keep-alive is a `ping` event
// (`data: {}`), which a browser's EventSource hands to the page, not an SSE comment, which it drops. One
// caller (a console session, a bearer principal) holds at most 4 streams (429 beyond), and watchers leave a
// quarter of the slots to deciders (503 beyond). A gateway served in this process, whose `write` tool asks.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '../src/client/index.js';
import {
  MemoryGrantStore,
  serveGateway,
  type Gateway,
  type GatewayHttpHandle,
} from '../src/gateway/index.js';
import { Server, text } from '../src/server/index.js';
import { SseReader, type SseEvent } from './_sse.js';
import { serveGatewayFor, type ServedGateway } from './_served-gateway.js';

let setup: ServedGateway | undefined;
let gateway: Gateway;
let served: GatewayHttpHandle;
let model: Client;
const grants = new MemoryGrantStore();
/** Tokens the verifier no longer accepts. */
const revoked = new Set<string>();

/**
 * The verifier: `approver-NAME` and `watcher-NAME` for principals of those roles, `brief-MS` for an approver
 * whose token expires at MS (ms since the epoch).
 */
async function verifier(token: string) {
  if (revoked.has(token)) throw new Error('revoked');
  const [role, rest] = token.split('-', 2) as [string, string];
  if (role === 'brief') return { subject: token, scopes: [], roles: ['approver'], expiresAt: Number(rest) };
  if (role !== 'approver' && role !== 'watcher') throw new Error('unknown token');
  return { subject: token, scopes: [], roles: [role] };
}

beforeAll(async () => {
  const server = new Server({ name: 'files', version: '1.0.0' });
  server.tool('write', { inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }, () =>
    text('written'),
  );
  setup = await serveGatewayFor(server, {
    config: { policy: { default: 'ask' } },
    options: { stores: { grants } },
    serve: { port: 0, console: false, api: { verifier } },
  });
  ({ gateway, served, model } = setup);
});

afterAll(() => setup?.close());

/** Signs in with `token` (the API token unless told): the session cookie's `name=value`. */
async function signIn(token = served.api.token): Promise<string> {
  const response = await fetch(`${served.apiUrl}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-toolwire-console': '1' },
    body: JSON.stringify({ token }),
  });
  expect(response.status).toBe(200);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

/** The session id a cookie carries (its signed payload is base64url JSON). */
function sessionIdOf(cookie: string): string {
  const payload = cookie.slice(cookie.indexOf('=') + 1).split('.')[0]!;
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sid: string }).sid;
}

/** Credentials as headers: a cookie (`name=value`) or a bearer token. */
const as = (credential: { cookie: string } | { token: string }): Record<string, string> =>
  'cookie' in credential ? { cookie: credential.cookie } : { authorization: `Bearer ${credential.token}` };

/** Opens `/api/events` (of `on`, this test's API unless told); the answer. */
function openStream(headers: Record<string, string>, on: GatewayHttpHandle = served): Promise<Response> {
  return fetch(`${on.apiUrl}/events`, { headers });
}

/** Opens the stream and reads up to its snapshot. */
async function stream(headers: Record<string, string>, on: GatewayHttpHandle = served): Promise<SseReader> {
  const response = await openStream(headers, on);
  expect(response.status).toBe(200);
  const reader = new SseReader(response);
  for (;;) {
    const event = await reader.next();
    if (event?.event === 'snapshot') return reader;
    if (event === undefined) throw new Error('the stream ended before its snapshot');
  }
}

/**
 * A stream kept past its expiry would end at its next keep-alive, `KEEP_ALIVE_MS` (15 s) later: one that ends
 * within this ended at its expiry, however busy the machine (4 s after opening was too short for one).
 */
const AT_EXPIRY_MS = 10_000;

/** Every event until the stream ends (fails when it has not ended within `ms`). */
async function untilEnded(reader: SseReader, ms = 5000): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const deadline = Date.now() + ms;
  for (;;) {
    const event = await reader.next(Math.max(1, deadline - Date.now()));
    if (event === undefined) return events;
    events.push(event);
  }
}

/** A call of `write` with `args`, held for approval: its approval's id, and its result to come. */
async function held(args: Record<string, unknown>) {
  const known = new Set((await gateway.approvals.pending()).map((approval) => approval.id));
  const result = model.callTool('files__write', args);
  let settled = false;
  void result.finally(() => (settled = true));
  for (;;) {
    if (settled) throw new Error(`the call was not held: ${JSON.stringify(await result)}`);
    const fresh = (await gateway.approvals.pending()).find((approval) => !known.has(approval.id));
    if (fresh) return { id: fresh.id, result };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function deny(call: Awaited<ReturnType<typeof held>>): Promise<void> {
  await gateway.approvals.decide(call.id, { approve: false, decidedBy: 'test' });
  await call.result;
}

describe('an event stream of a console session', () => {
  it('ends when the session is signed out: an approval raised afterwards never reaches it', async () => {
    const cookie = await signIn();
    const reader = await stream(as({ cookie }));
    try {
      const out = await fetch(`${served.apiUrl}/session`, {
        method: 'DELETE',
        headers: { cookie, 'x-toolwire-console': '1' },
      });
      expect(out.status).toBe(200);
      const call = await held({ path: 'SECRET-ARG-AFTER-SIGNOUT' });
      const after = await untilEnded(reader);
      expect(after.map((event) => event.event)).not.toContain('approval.pending');
      expect(JSON.stringify(after)).not.toContain('SECRET-ARG-AFTER-SIGNOUT');
      await deny(call);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  });

  it('ends every stream of the session (every tab), and no other session’s', async () => {
    const cookie = await signIn();
    const other = await signIn();
    const tabs = [await stream(as({ cookie })), await stream(as({ cookie }))];
    const elsewhere = await stream(as({ cookie: other }));
    try {
      await fetch(`${served.apiUrl}/session`, {
        method: 'DELETE',
        headers: { cookie, 'x-toolwire-console': '1' },
      });
      for (const tab of tabs) await untilEnded(tab);
      const call = await held({ path: 'still-watched' });
      let event: SseEvent | undefined;
      do event = await elsewhere.next();
      while (event?.event !== 'approval.pending');
      expect(event.data).toContain('still-watched');
      await deny(call);
    } finally {
      for (const reader of [...tabs, elsewhere]) await reader.cancel().catch(() => undefined);
    }
  });

  it('ends when its cookie expires', async () => {
    const cookie = await signIn(`brief-${Date.now() + 1500}`);
    const reader = await stream(as({ cookie }));
    try {
      const started = Date.now();
      await untilEnded(reader, AT_EXPIRY_MS);
      expect(Date.now() - started).toBeLessThan(AT_EXPIRY_MS);
      expect((await openStream(as({ cookie }))).status).toBe(401);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  });
});

describe('an event stream of a bearer token', () => {
  it("ends when its principal's token expires", async () => {
    const reader = await stream(as({ token: `brief-${Date.now() + 1500}` }));
    try {
      await untilEnded(reader, AT_EXPIRY_MS);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  });

  it('ends at the expiry though its timer fired before the wall clock reached it (the clock stepped back)', async () => {
    const reader = await stream(as({ token: `brief-${Date.now() + 300}` }));
    // The wall clock steps back 200 ms once the stream is open: its expiry timer, armed before, fires while
    // Date.now() is still short of the expiry (the keep-alive, 15 s away, would be the next check).
    const now = Date.now.bind(Date);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now() - 200);
    try {
      await untilEnded(reader, AT_EXPIRY_MS);
    } finally {
      clock.mockRestore();
      await reader.cancel().catch(() => undefined);
    }
  });
});

describe('the keep-alive', () => {
  it('is a ping event with data {} every 15 s, not a comment an EventSource drops', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const response = await openStream(as({ token: served.api.token }));
      const body = response.body!.getReader();
      const decoder = new TextDecoder();
      let received = '';
      const until = async (marker: string) => {
        while (!received.includes(marker)) {
          const chunk = await body.read();
          if (chunk.done) throw new Error(`the stream ended before ${marker}`);
          received += decoder.decode(chunk.value, { stream: true });
        }
      };
      await until('event: snapshot');
      vi.advanceTimersByTime(15_000);
      await until('event: ping\ndata: {}\n\n');
      expect(received).not.toMatch(/^:/m);
      await body.cancel();
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks again whether the session holds: one ended where this instance heard nothing of it ends', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const cookie = await signIn();
    const reader = await stream(as({ cookie }));
    try {
      // Ended in the shared store only, as by an instance whose news on the bus was lost.
      await grants.grant(':ended-sessions', sessionIdOf(cookie), Date.now() + 60_000);
      vi.advanceTimersByTime(15_000);
      await untilEnded(reader);
    } finally {
      vi.useRealTimers();
      await reader.cancel().catch(() => undefined);
    }
  });

  it('asks the verifier again: a token it refuses now ends its stream', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const token = 'approver-revocable';
    const reader = await stream(as({ token }));
    try {
      vi.advanceTimersByTime(15_000);
      expect((await reader.next())?.event).toBe('ping'); // still good
      revoked.add(token);
      vi.advanceTimersByTime(15_000);
      await untilEnded(reader);
    } finally {
      vi.useRealTimers();
      await reader.cancel().catch(() => undefined);
    }
  });
});

describe('event stream slots', () => {
  it('gives one caller at most 4 streams (429), whoever else still gets one', async () => {
    const cookie = await signIn();
    const open: Response[] = [];
    try {
      for (const credential of [{ token: served.api.token }, { cookie }]) {
        for (let i = 0; i < 4; i++) {
          const response = await openStream(as(credential));
          open.push(response);
          expect(response.status).toBe(200);
        }
        const refused = await openStream(as(credential));
        expect(refused.status).toBe(429);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
          'TOO_MANY_STREAMS_PER_CALLER',
        );
      }
      const someoneElse = await openStream(as({ token: 'approver-ada' }));
      open.push(someoneElse);
      expect(someoneElse.status).toBe(200);
    } finally {
      for (const response of open) await response.body?.cancel().catch(() => undefined);
    }
  });

  it('keeps a quarter of the slots for deciders: watchers get 503 beyond the rest, a decider still gets one', async () => {
    const small = await serveGateway(gateway, {
      port: 0,
      mcp: false,
      console: false,
      api: { verifier, maxEventStreams: 8 },
    });
    const open: Response[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const response = await openStream(as({ token: `watcher-${i}` }), small);
        open.push(response);
        expect(response.status).toBe(200);
      }
      const refused = await openStream(as({ token: 'watcher-6' }), small);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TOO_MANY_STREAMS');
      for (const name of ['approver-ada', 'approver-bob']) {
        const decider = await openStream(as({ token: name }), small);
        open.push(decider);
        expect(decider.status).toBe(200);
      }
      // Every slot is taken now.
      expect((await openStream(as({ token: 'approver-cy' }), small)).status).toBe(503);
    } finally {
      for (const response of open) await response.body?.cancel().catch(() => undefined);
      await small.close();
    }
  });
});
