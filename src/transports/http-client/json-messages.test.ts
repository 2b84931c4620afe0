import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../protocol/errors.js';
import { jsonMessages } from './json-messages.js';

describe('jsonMessages', () => {
  it('gives one message, or each message of a batch', () => {
    const report = (error: Error) => expect.unreachable(error.message);
    expect(jsonMessages('{"jsonrpc":"2.0","id":1,"result":{}}', report)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
    expect(jsonMessages('[{"id":1},{"id":2}]', report)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('gives none for text that is not JSON, and reports a -32700', () => {
    const reported: ProtocolError[] = [];
    expect(jsonMessages('{"id": ', (error) => reported.push(error))).toEqual([]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(ProtocolError);
    expect(reported[0]?.code).toBe(-32700);
    expect(reported[0]?.message).toMatch(/^Parse error: /);
  });
});
