import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { fakeCall, ok } from '../../../test/_calls.js';
import { ProtocolError } from '../../protocol/errors.js';
import type { CallToolResult } from '../../protocol/types/tools.js';
import { InputRequiredSignal } from '../input-required/input-round.js';
import { audit, jsonLinesSink, pinoSink, sha256Digest, type AuditRecord } from './audit.js';

function collect() {
  const records: AuditRecord[] = [];
  return { records, sink: { write: (record: AuditRecord) => void records.push(record) } };
}

describe('audit', () => {
  it('writes one record per call with digests of arguments and result', async () => {
    const { records, sink } = collect();
    const call = fakeCall({ arguments: { b: 1, a: 'x' }, sessionId: 's1', requestId: 7 });
    await audit({ sink })(call, async () => ok('hi'));
    expect(records).toEqual([
      {
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        principal: null,
        session: 's1',
        requestId: 7,
        protocolVersion: '2025-11-25',
        tool: 'echo',
        argumentsDigest: await sha256Digest({ a: 'x', b: 1 }),
        decision: 'allowed',
        durationMs: expect.any(Number),
        outcome: 'ok',
        resultDigest: await sha256Digest(ok('hi')),
      },
    ]);
    expect(records[0]!.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('logs redacted arguments when asked: secret patterns and secret-named keys', async () => {
    const { records, sink } = collect();
    const call = fakeCall({ arguments: { query: 'token=abcdefgh', password: 'pw', n: 1 } });
    await audit({ sink, arguments: 'redacted' })(call, async () => ok());
    expect(records[0]!.arguments).toEqual({ query: 'token=[REDACTED]', password: '[REDACTED]', n: 1 });
    expect(records[0]!.argumentsDigest).toBeUndefined();
  });

  it('records isError results, errors (message redacted), decisions and input_required', async () => {
    const { records, sink } = collect();
    const mw = audit({ sink, arguments: 'none' });
    await mw(fakeCall(), async (): Promise<CallToolResult> => ({ content: [], isError: true }));
    const limited = fakeCall();
    await mw(limited, async () => {
      limited.decision = 'rate_limited';
      throw new ProtocolError(-31429, 'Rate limit exceeded; key AKIAIOSFODNN7EXAMPLE');
    }).catch(() => {});
    await mw(fakeCall(), async () => {
      throw new InputRequiredSignal('elicit-1', 'elicitation/create');
    }).catch(() => {});
    expect(records.map((r) => [r.outcome, r.decision, r.error])).toEqual([
      ['isError', 'allowed', undefined],
      ['error', 'rate_limited', { code: -31429, message: 'Rate limit exceeded; key [REDACTED]' }],
      ['input_required', 'allowed', undefined],
    ]);
    expect(records[0]!.arguments).toBeUndefined();
  });

  it('never lets a failing sink affect the call', async () => {
    const errors: unknown[] = [];
    const mw = audit({
      sink: {
        write: () => {
          throw new Error('disk full');
        },
      },
      onError: (error) => errors.push(error),
    });
    await expect(mw(fakeCall(), async () => ok())).resolves.toEqual(ok());
    expect(errors).toHaveLength(1);
  });

  it('writes JSON lines, or hands records to a pino-like logger', async () => {
    const lines: string[] = [];
    await audit({ sink: jsonLinesSink({ write: (line: string) => lines.push(line) }) })(
      fakeCall(),
      async () => ok(),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toMatchObject({ tool: 'echo', outcome: 'ok' });

    const logged: Array<[object, string | undefined]> = [];
    await audit({ sink: pinoSink({ info: (obj, msg) => logged.push([obj, msg]) }) })(fakeCall(), async () =>
      ok(),
    );
    expect(logged[0]).toEqual([expect.objectContaining({ tool: 'echo' }), 'tools/call']);
    expect(logged[0]![0]).not.toHaveProperty('time');
    expect(logged[0]![0]).toHaveProperty('startedAt', expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
  });

  it('works with a real pino logger: one line per call, with one time key', async () => {
    const lines: string[] = [];
    const logger = pino({ base: undefined }, { write: (line: string) => void lines.push(line) });
    await audit({ sink: pinoSink(logger) })(fakeCall({ sessionId: 's' }), async () => ok());
    expect(lines).toHaveLength(1);
    // JSON.parse keeps the last of duplicate keys: count them in the text itself.
    expect(lines[0]!.match(/"time":/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      time: expect.any(Number),
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: 30,
      msg: 'tools/call',
      tool: 'echo',
      session: 's',
      decision: 'allowed',
      outcome: 'ok',
    });
  });
});
