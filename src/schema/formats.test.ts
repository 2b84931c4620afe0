import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileJsonSchema } from './compile.js';
import { URL_PATTERN } from './formats.js';
import { LinearRegExp } from './linear-regexp.js';

const ajvUrl = fullFormats.url as RegExp;

describe('schema formats', () => {
  it('checks url as ajv-formats does, with its private networks written out (no lookahead)', () => {
    const url = new LinearRegExp(URL_PATTERN, 'i');
    const octets = ['0', '1', '01', '9', '10', '11', '15', '16', '31', '32', '99', '100', '126', '127', '128',
      '167', '168', '169', '170', '171', '172', '173', '191', '192', '193', '199', '200', '223', '224', '254',
      '255', '256']; // prettier-ignore
    const hosts: string[] = [];
    for (const a of octets)
      for (const b of octets) for (const d of ['1', '254', '255']) hosts.push(`${a}.${b}.7.${d}`);
    hosts.push(
      'example.com',
      'xn--bcher-kva.de',
      'bücher.de',
      'a-b.c-d.io',
      '-a.com',
      'a-.com',
      'localhost',
      'a.b',
    );
    const tails = ['', ':8080', '/path?q=1#f'];
    let checked = 0;
    for (const host of hosts) {
      for (const prefix of ['http://', 'FTP://user:pw@', 'mailto://']) {
        for (const tail of tails) {
          const value = `${prefix}${host}${tail}`;
          expect([value, url.test(value)]).toEqual([value, ajvUrl.test(value)]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(25_000);
  });

  it('checks every format in linear time on long adversarial strings', () => {
    const formats = Object.keys(fullFormats);
    const validators = formats.map((format) => compileJsonSchema({ type: 'string', format }));
    const n = 20_000;
    const inputs = [
      `http://${':'.repeat(n)}`,
      `http://${'P%2'.repeat(n / 3)}}`,
      `${'a'.repeat(n)}!`,
      `a@${'a.'.repeat(n / 2)}-`,
      `${'1:'.repeat(n / 2)}`,
      `${'(a|a)*'.repeat(n / 6)}[`,
      `P${'1Y'.repeat(n / 2)}!`,
      `${'/~0'.repeat(n / 3)}~`,
    ];
    const started = performance.now();
    for (const validate of validators) for (const input of inputs) validate(input);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('runs the patterns zod v4 writes for its string formats (all but those with lookahead)', () => {
    const schema = z.object({
      email: z.email(),
      uuid: z.uuid(),
      dt: z.iso.datetime(),
      date: z.iso.date(),
      time: z.iso.time(),
      ipv4: z.ipv4(),
      ipv6: z.ipv6(),
      cidr: z.cidrv4(),
      b64: z.base64(),
      e164: z.e164(),
      ulid: z.ulid(),
      mac: z.mac(),
      lower: z.string().lowercase(),
      starts: z.string().startsWith('a.b'),
    });
    const validate = compileJsonSchema(z.toJSONSchema(schema) as Record<string, unknown>);
    const good = {
      email: 'a.b@example.com',
      uuid: '123e4567-e89b-12d3-a456-426614174000',
      dt: '2024-02-29T12:00:00Z',
      date: '2024-02-29',
      time: '12:30',
      ipv4: '10.0.0.1',
      ipv6: '::1',
      cidr: '10.0.0.0/8',
      b64: 'aGk=',
      e164: '+15551234567',
      ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      mac: '00:1a:2b:3c:4d:5e',
      lower: 'abc',
      starts: 'a.bc',
    };
    expect(validate(good)).toEqual({ ok: true, value: good });
    for (const key of Object.keys(good)) expect(validate({ ...good, [key]: 'X y!' }).ok, key).toBe(false);
    // z.iso.duration(), z.emoji() and z.hostname() write lookahead: such a schema is refused, not run.
    expect(() => compileJsonSchema(z.toJSONSchema(z.hostname()) as Record<string, unknown>)).toThrow(
      /lookahead/,
    );
  });
});
