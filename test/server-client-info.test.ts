// What a session keeps of its client after `initialize`: sessions of the same client program share one
// frozen `clientInfo` and one frozen `capabilities` object (interned by their JSON text); another client's
// are its own. Two real clients over the in-memory pair.
import { afterEach, describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { serverCore } from '../src/server/server.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { linkServer, type Connected } from './_setup.js';

const opened: Connected[] = [];
afterEach(async () => {
  for (const connected of opened.splice(0)) await connected.close();
});

describe('client info kept per session', () => {
  it('is one frozen object for every session of the same client, its own for another', async () => {
    const server = new Server({ name: 'interned', version: '1.0.0' });
    server.tool('hi', {}, () => text('hi'));
    const capabilities = { elicitation: {}, roots: { listChanged: true } };
    opened.push(await linkServer(server, { protocolVersion: '2025-11-25', capabilities }));
    opened.push(await linkServer(server, { protocolVersion: '2025-11-25', capabilities }));
    opened.push(await linkServer(server, { protocolVersion: '2025-11-25', capabilities: { sampling: {} } }));
    const [first, second, other] = [...serverCore(server).sessions].map((session) => session.client);
    expect(first!.info).toEqual({ name: 'matrix', version: '1.0.0' });
    expect(second!.info).toBe(first!.info);
    expect(second!.capabilities).toBe(first!.capabilities);
    expect(first!.capabilities).toMatchObject(capabilities);
    expect(Object.isFrozen(first!.capabilities)).toBe(true);
    expect(Object.isFrozen((first!.capabilities as { roots: object }).roots)).toBe(true);
    expect(other!.capabilities).not.toBe(first!.capabilities);
    expect(other!.capabilities).toMatchObject({ sampling: {} });
    // The sessions still work as before.
    expect((await opened[1]!.client.callTool('hi', {})).content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});

describe('client info of a session taken up from its shared record', () => {
  it('is the same frozen object as the sessions that made the handshake here', async () => {
    const server = new Server({ name: 'interned', version: '1.0.0' });
    const capabilities = { elicitation: {} };
    opened.push(await linkServer(server, { protocolVersion: '2025-11-25', capabilities }));
    const core = serverCore(server);
    const [here] = [...core.sessions];
    // A record as another instance wrote it (parsed from Redis: objects of its own).
    const record = JSON.parse(JSON.stringify(core.sessionState(here!))) as ReturnType<
      typeof core.sessionState
    >;
    const [clientEnd] = createLinkedPair();
    const resumed = await core.connect(clientEnd);
    expect(core.resumeSession(resumed, record)).toBe(true);
    expect(resumed.client.info).toBe(here!.client.info);
    expect(resumed.client.capabilities).toBe(here!.client.capabilities);
    await resumed.close();
  });
});
