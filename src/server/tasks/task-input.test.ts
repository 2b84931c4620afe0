import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../protocol/errors.js';
import type { TaskInputRequest } from '../../stores/task-store.js';
import { TaskInput } from './task-input.js';

const FORM = { message: 'Name?', requestedSchema: { type: 'object', properties: {} } };

function channel(capabilities: Record<string, unknown> = { elicitation: {}, roots: {} }) {
  const controller = new AbortController();
  const published: Array<Record<string, TaskInputRequest>> = [];
  const input = new TaskInput({
    capabilities,
    signal: controller.signal,
    publish: (pending) => {
      published.push(pending);
      return Promise.resolve();
    },
  });
  return { input, published, controller };
}

describe('TaskInput', () => {
  it('never reuses a key in the task lifetime and refuses a named key twice', async () => {
    const { input, published } = channel();
    const first = input.ask('elicitation/create', FORM);
    await input.answer({ 'elicit-1': { action: 'decline' } });
    await expect(first).resolves.toEqual({ action: 'decline' });
    void input.ask('roots/list', undefined);
    expect(input.pendingKeys).toEqual(['roots-2']);
    void input.ask('elicitation/create', FORM, 'mine');
    await expect(input.ask('elicitation/create', FORM, 'mine')).rejects.toThrow(TypeError);
    expect(published.map((pending) => Object.keys(pending))).toEqual([
      ['elicit-1'],
      [],
      ['roots-2'],
      ['roots-2', 'mine'],
    ]);
  });

  it('takes a partial set of answers, ignores unknown keys and refuses an answer of the wrong shape', async () => {
    const { input, published } = channel();
    const a = input.ask('elicitation/create', FORM, 'a');
    void input.ask('elicitation/create', FORM, 'b');
    await input.answer({ a: { action: 'accept', content: { name: 'x' } }, zzz: { action: 'accept' } });
    await expect(a).resolves.toMatchObject({ content: { name: 'x' } });
    expect(published.at(-1)).toEqual({ b: { method: 'elicitation/create', params: FORM } });
    const wrong = input.answer({ b: { action: 'perhaps' } });
    await expect(wrong).rejects.toMatchObject({ code: -32602 });
    expect(input.pendingKeys).toEqual(['b']);
  });

  it('refuses a question the client has no capability for with -32021', async () => {
    const { input } = channel({});
    const asked = input.ask('sampling/createMessage', { messages: [], maxTokens: 1 });
    await expect(asked).rejects.toBeInstanceOf(ProtocolError);
    await expect(asked).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  it('drops pending questions when the handler is aborted', async () => {
    const { input, controller } = channel();
    const pending = input.ask('elicitation/create', FORM);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    expect(input.pendingKeys).toEqual([]);
    await expect(input.ask('elicitation/create', FORM)).rejects.toThrow('cancelled');
  });
});
