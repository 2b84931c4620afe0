// CoreTaskInput on a store several processes share (here the memory store, whose claims and answers keep
// the same contract as Redis's): a question is recorded in the task's inputRequests, sent by this process
// only when it claims it, and answered from the store when the answer came through another process.
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { MemoryTaskStore } from '../../stores/memory-task-store.js';
import { CoreTaskInput } from './core-task-input.js';

const FORM = { message: 'Name?', requestedSchema: { type: 'object', properties: {} } };

async function running() {
  const store = new MemoryTaskStore();
  const now = new Date().toISOString();
  await store.create({
    taskId: 't1',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    method: 'tools/call',
  });
  const sent: Array<[string, JsonObject]> = [];
  const input = new CoreTaskInput({
    taskId: 't1',
    signal: new AbortController().signal,
    check: () => undefined,
    publish: async (change) => void (await store.update('t1', change)),
    claim: async (key) => (await store.claimInput('t1', [key], 'runner', 60_000)).length > 0,
  });
  /** A `tasks/result` here: records what it sends, and answers it once `answer` is called. */
  const waiting = () => {
    let answer: (result: JsonObject) => void = () => undefined;
    const detach = input.attach((method, params) => {
      sent.push([method, params]);
      return new Promise((resolve) => (answer = resolve));
    });
    return { detach, answer: (result: JsonObject) => answer(result) };
  };
  return { store, input, sent, waiting };
}

describe('CoreTaskInput on a shared store', () => {
  it('records its questions in inputRequests, tagged with the task, and sends each once', async () => {
    const { store, input, sent, waiting } = await running();
    const asked = input.ask('elicitation/create', FORM);
    waiting();
    const latest = waiting(); // a second tasks/result here carries it (the latest), not twice
    await expect.poll(() => sent.length).toBe(1);
    const tagged = { ...FORM, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } };
    expect(sent[0]).toEqual(['elicitation/create', tagged]);
    expect(await store.get('t1')).toMatchObject({
      status: 'input_required',
      inputRequests: { 'elicit-1': { method: 'elicitation/create', params: tagged } },
    });
    latest.answer({ action: 'decline' });
    await expect(asked).resolves.toEqual({ action: 'decline' });
    expect(await store.get('t1')).not.toHaveProperty('inputRequests');
    expect(sent).toHaveLength(1);
  });

  it('leaves a question another process claimed to it, and takes the answer that came through it', async () => {
    const { store, input, sent, waiting } = await running();
    const asked = input.ask('elicitation/create', FORM);
    await expect.poll(async () => (await store.get('t1'))?.status).toBe('input_required');
    expect(await store.claimInput('t1', ['elicit-1'], 'elsewhere', 60_000)).toEqual(['elicit-1']);
    const claimed = store.claimInput.bind(store);
    let tried = 0;
    store.claimInput = (...args) => (tried++, claimed(...args));
    waiting();
    await expect.poll(() => tried).toBe(1);
    expect(sent).toEqual([]);
    const failing = input.ask('roots/list', undefined);
    input.answered({
      'elicit-1': { result: { action: 'accept', content: { name: 'Ada' } } },
      'roots-2': { error: { code: -32601, message: 'Method not found' } },
      'elicit-9': { result: { action: 'accept' } },
    });
    await expect(asked).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    await expect(failing).rejects.toEqual(new ProtocolError(-32601, 'Method not found'));
  });
});
