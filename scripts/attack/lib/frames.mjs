// fast-check arbitraries of hostile JSON-RPC frames (one frame = the bytes of one stdio line or one POST
// body) and what a correct server must answer to each. Requests get ids unique across a run, so every
// response can be traced to the frame that asked for it.
import fc from 'fast-check';
import { STATELESS_META } from './http.mjs';

const METHODS = [
  'ping',
  'initialize',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'server/discover',
  'tasks/get',
  'subscriptions/listen',
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/progress',
  'no/such/method',
  '',
  '__proto__',
  'constructor',
  'rpc.discover',
];
const TOOLS = ['echo', 'add', 'long', 'unique', 'tree', 'pattern_keys', 'nope', '', '__proto__', 'toString'];

/** JSON text fragments JSON.stringify cannot produce: numbers out of range, escapes of lone surrogates. */
const RAW_TOKENS = [
  '1e400',
  '-1e400',
  '-0',
  '1.5',
  '123456789012345678901234567890',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"\\u0000"',
  '"\\u2028\\u2029"',
];
const RAW = '@@raw:';
const raw = (token) => `${RAW}${token}@@`;
/** JSON text of `value` with the raw tokens spliced in. */
function serialize(value) {
  return JSON.stringify(value).replace(/"@@raw:((?:[^@\\]|\\.|@(?!@))*)@@"/g, (_, token) =>
    JSON.parse(`"${token}"`),
  );
}

const plainText = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('\u2028', '\ufeff', '\u0000', '💥', 'e\u0301', '\u202e', 'A'.repeat(10_000)),
);
/** A string, or a raw token (never as an object key: the frame would not be JSON). */
const text = fc.oneof(plainText, fc.constantFrom(...RAW_TOKENS).map(raw));
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(...RAW_TOKENS).map(raw),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('any'), { maxLength: 4 }),
  object: fc.dictionary(
    fc.oneof(plainText, fc.constantFrom('__proto__', 'constructor', '_meta', 'name')),
    tie('any'),
    { maxKeys: 4 },
  ),
})).any;

const args = fc.oneof(
  fc.record({ text: value }),
  fc.record({ a: value, b: value }),
  fc.record({ value: fc.oneof(text, value) }),
  value,
);
const params = fc.oneof(
  fc.record({ name: fc.oneof(fc.constantFrom(...TOOLS), value), arguments: args }, { requiredKeys: [] }),
  fc.record({
    name: fc.constantFrom(...TOOLS),
    arguments: args,
    _meta: fc.constantFrom(STATELESS_META, { progressToken: 1 }, 'meta', null),
  }),
  fc.record({
    protocolVersion: fc.constantFrom('2025-11-25', '2024-11-05', '9999-01-01', 7),
    capabilities: value,
    clientInfo: value,
  }),
  fc.record({ requestId: value, reason: value }),
  fc.record({ uri: value, cursor: value, level: value }, { requiredKeys: [] }),
  value,
);

/** The shape of an id; `definite` ids are ones a request must be answered with. */
const idShape = fc.constantFrom(
  'int',
  'negative',
  'big',
  'string',
  'unicode',
  'long',
  'raw',
  'null',
  'bool',
  'object',
  'float',
  'none',
);

/** One message, as a plan: the id is filled in (unique) when the frame is built. */
const messagePlan = fc.record({
  kind: fc.constantFrom('request', 'request', 'request', 'notification', 'response'),
  jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '2.0', '1.0', 2, null, undefined),
  method: fc.oneof(fc.constantFrom(...METHODS), text),
  idShape,
  idText: fc.string({ unit: 'binary', maxLength: 8 }),
  params: fc.option(params, { nil: undefined }),
});

/** A frame plan: a message, a batch, or bytes no JSON parser accepts. */
export const framePlan = fc.oneof(
  { weight: 6, arbitrary: messagePlan.map((m) => ({ type: 'message', message: m })) },
  { weight: 2, arbitrary: fc.array(messagePlan, { maxLength: 5 }).map((list) => ({ type: 'batch', list })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ type: 'bytes', bytes })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{',
        '[]',
        '{}',
        '1',
        '"x"',
        'null',
        '\ufeff{"jsonrpc":"2.0","id":"bom","method":"ping"}',
        '['.repeat(5000),
        '{"a":'.repeat(3000),
      )
      .map((t) => ({ type: 'text', text: t })),
  },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 30 }).map((bytes) => ({ type: 'badUtf8', bytes })),
  },
);

/**
 * Frames for the stateless era: half of them well-formed 2026-07-28 requests (the `_meta` it needs, a known
 * method) around fuzzed arguments, so that the fuzz gets past the envelope checks; the rest as `framePlan`.
 */
export const statelessFramePlan = fc.oneof(
  framePlan,
  fc
    .record({
      method: fc.constantFrom(
        'tools/call',
        'tools/list',
        'server/discover',
        'resources/list',
        'prompts/list',
        'ping',
      ),
      name: fc.constantFrom(...TOOLS),
      args,
      idShape: fc.constantFrom('int', 'string', 'unicode', 'big'),
      idText: fc.string({ unit: 'binary', maxLength: 8 }),
    })
    .map((plan) => ({ type: 'stateless', plan })),
);

/** The key an id is compared by: its JSON text as a parser reads it (a raw `1e400` reads as Infinity: null). */
export function idKey(id) {
  if (typeof id === 'string' && id.startsWith(RAW))
    return JSON.stringify(JSON.parse(id.slice(RAW.length, -2)));
  return JSON.stringify(id) ?? 'undefined';
}

/**
 * Builds the frame's bytes (no newline) with ids from `nextId()`; returns { bytes, definite, sent }:
 * `definite` ids must each get exactly one response; `sent` holds the key of every id in the frame (a
 * response may only ever carry one of those, or null).
 */
export function buildFrame(plan, nextId) {
  const definite = [];
  const sent = [];
  const toMessage = (m) => {
    const n = nextId();
    const id = makeId(m.idShape, n, m.idText);
    sent.push(idKey(id));
    const out = {};
    if (m.jsonrpc !== undefined) out.jsonrpc = m.jsonrpc;
    if (m.kind !== 'notification' && m.idShape !== 'none') out.id = id;
    if (m.kind === 'response') out.result = {};
    else out.method = m.method;
    if (m.params !== undefined) out.params = m.params;
    const validId = (typeof id === 'string' && !id.startsWith(RAW)) || Number.isSafeInteger(id);
    const method = typeof m.method === 'string' && !m.method.startsWith(RAW);
    if (m.kind === 'request' && m.idShape !== 'none' && validId && m.jsonrpc === '2.0' && method)
      definite.push(id);
    return out;
  };
  switch (plan.type) {
    case 'message':
      return { bytes: Buffer.from(serialize(toMessage(plan.message))), definite, sent };
    case 'batch': {
      // Whether a batch is taken depends on the revision: its requests may be answered one by one, or
      // the batch refused as a whole (with id null).
      const bytes = Buffer.from(serialize(plan.list.map(toMessage)));
      return { bytes, definite: [], sent };
    }
    case 'bytes':
      return { bytes: Buffer.from(plan.bytes.filter((b) => b !== 0x0a)), definite, sent };
    case 'text':
      return { bytes: Buffer.from(plan.text), definite, sent: ['"bom"'] };
    case 'stateless': {
      const { method, name, args: fuzzed, idShape: shape, idText } = plan.plan;
      const id = makeId(shape, nextId(), idText);
      const params = {
        ...(method === 'tools/call' ? { name, arguments: fuzzed } : {}),
        _meta: STATELESS_META,
      };
      const bytes = Buffer.from(serialize({ jsonrpc: '2.0', id, method, params }));
      return { bytes, definite: [id], sent: [idKey(id)] };
    }
    case 'badUtf8': {
      // Bytes that are not UTF-8 inside a string: read as U+FFFD, the call is a good one.
      const id = `bad-${nextId()}`;
      const head = `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"echo","arguments":{"text":"`;
      const bytes = Buffer.from(plan.bytes.map((b) => b | 0x80));
      return {
        bytes: Buffer.concat([Buffer.from(head), bytes, Buffer.from('"}}}')]),
        definite: [id],
        sent: [idKey(id)],
      };
    }
  }
}

function makeId(shape, n, idText) {
  switch (shape) {
    case 'int':
      return n;
    case 'negative':
      return -n;
    case 'big':
      return Number.MAX_SAFE_INTEGER - n;
    case 'string':
      return `s-${n}`;
    case 'unicode':
      return `${idText}\u2028💥-${n}`;
    case 'long':
      return `${'x'.repeat(100_000)}-${n}`;
    case 'raw':
      return raw(['1e400', '-0', '1.5', '123456789012345678901234567890'][n % 4]);
    case 'null':
      return null;
    case 'bool':
      return n % 2 === 0;
    case 'object':
      return { n };
    case 'float':
      return n + 0.5;
    default:
      return undefined;
  }
}

/** What is wrong with `message` as a JSON-RPC response a server sent (undefined: nothing). */
export function malformedResponse(message) {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'not an object';
  if (message.method !== undefined) return undefined; // a server notification or request
  if (message.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  // An error for a request whose id could not be read has id null, or none at all (2025-11-25 on).
  if (!('id' in message) && !('error' in message)) return 'a result without id';
  if ('result' in message === 'error' in message) return 'not exactly one of result and error';
  if ('error' in message) {
    const { code, message: text } = message.error ?? {};
    if (!Number.isInteger(code) || typeof text !== 'string')
      return 'an error without an integer code and a message';
    if (code === -32603) return `internal error (-32603) for bad input: ${text}`;
  }
  return undefined;
}
