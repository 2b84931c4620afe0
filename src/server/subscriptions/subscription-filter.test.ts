import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../protocol/errors.js';
import { honouredFilter, parseSubscriptionFilter } from './subscription-filter.js';

describe('parseSubscriptionFilter', () => {
  it('reads the flags and the URIs, dropping duplicate URIs and unknown keys', () => {
    const notifications = {
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ['a://1', 'a://2', 'a://1'],
      'com.example/tasks': true,
    };
    expect(parseSubscriptionFilter({ notifications })).toEqual({
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ['a://1', 'a://2'],
    });
    expect(parseSubscriptionFilter({ notifications: {} })).toEqual({});
    expect(parseSubscriptionFilter({ notifications: { taskIds: ['t1', 't1', 't2'] } })).toEqual({
      taskIds: ['t1', 't2'],
    });
  });

  it.each([
    ['no notifications', {}],
    ['notifications that are not an object', { notifications: [true] }],
    ['a flag that is not a boolean', { notifications: { resourcesListChanged: 1 } }],
    ['URIs that are not strings', { notifications: { resourceSubscriptions: ['a://1', null] } }],
    ['task ids that are not strings', { notifications: { taskIds: [1] } }],
    [
      'more task ids than a listen may name',
      { notifications: { taskIds: Array.from({ length: 101 }, String) } },
    ],
    [
      'more URIs than a listen may name',
      { notifications: { resourceSubscriptions: Array.from({ length: 1001 }, (_, i) => `a://${i}`) } },
    ],
    [
      'a URI of more than 4096 characters',
      { notifications: { resourceSubscriptions: [`a://${'x'.repeat(4093)}`] } },
    ],
  ])('refuses %s with -32602', (_, params) => {
    expect(() => parseSubscriptionFilter(params)).toThrow(
      expect.objectContaining({ constructor: ProtocolError, code: -32602 }),
    );
  });
});

describe('honouredFilter', () => {
  const requested = {
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: false,
    resourceSubscriptions: ['a://1'],
  };

  it('keeps what the capabilities advertise and was asked for with true', () => {
    const capabilities = {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    };
    expect(honouredFilter(requested, capabilities)).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['a://1'],
    });
  });

  it('leaves out the types the server does not support', () => {
    expect(honouredFilter(requested, { tools: { listChanged: true } })).toEqual({ toolsListChanged: true });
  });
});
