/**
 * The JSON Schema of a gateway configuration file (draft 2020-12). The package ships it as
 * `gateway-config.schema.json` (a test keeps the two equal), so editors complete and check a config that
 * names it: `"$schema": "./node_modules/toolwire/gateway-config.schema.json"`.
 * @module
 */

const action = { enum: ['allow', 'ask', 'deny'] } as const;
const positiveMs = { type: 'integer', minimum: 1, maximum: 86_400_000 } as const;
const count = { type: 'integer', minimum: 0, maximum: 1_000_000 } as const;
const redisUrl = {
  type: 'string',
  pattern: '^rediss?://',
  description: 'redis://HOST:PORT or rediss://…',
} as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const revision = {
  enum: ['auto', '2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
} as const;

// A Host header's value (a name, an IPv4 address or a bracketed IPv6 one, with an optional port), and an
// Origin (a browser's: scheme, host, port; no path, no trailing slash).
const hostPart = '(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?';
const http = {
  type: 'object',
  description: 'Who may reach the HTTP listener (MCP endpoint, decision API, console), read at start.',
  additionalProperties: false,
  properties: {
    allowedHosts: {
      type: 'array',
      minItems: 1,
      description:
        'Host header values to answer, e.g. gateway.example.com (the command keeps loopback names).',
      items: { type: 'string', pattern: `^${hostPart}$` },
    },
    allowedOrigins: {
      type: 'array',
      minItems: 1,
      description: 'Origins browsers may send, e.g. https://gateway.example.com (no path).',
      items: { type: 'string', pattern: `^https?://${hostPart}$` },
    },
    trustForwardedProto: {
      type: 'boolean',
      description: "The API takes the browser's scheme from X-Forwarded-Proto (behind a TLS terminator).",
    },
  },
} as const;

const common = {
  prefix: {
    type: 'string',
    pattern: '^[A-Za-z0-9_-]{1,32}$',
    description: "What the upstream's tool and prompt names start with downstream (default: its name).",
  },
  trusted: {
    type: 'boolean',
    description: 'Whether its tool annotations may decide calls no rule matched (default false).',
  },
  protocolVersion: { ...revision, description: 'The revision to speak (default auto).' },
  timeoutMs: {
    ...positiveMs,
    description: 'How long one call may take, renewed by progress (default 60000).',
  },
  maxCallMs: {
    ...positiveMs,
    description: 'The longest one call may take, whatever its progress (default 600000, at least timeoutMs).',
  },
  maxTools: {
    type: 'integer',
    minimum: 1,
    maximum: 100_000,
    description:
      'The most tools (and resources, templates, prompts: each list) it may list; past it the upstream is down (default 10000).',
  },
  connectTimeoutMs: {
    type: 'integer',
    minimum: 100,
    maximum: 600_000,
    description:
      'How long connecting (spawn, handshake, first lists) may take in all before the attempt fails (default 30000).',
  },
} as const;

const oauth = {
  type: 'object',
  description: 'The upstream is OAuth-protected: the gateway signs in with the OAuth client.',
  additionalProperties: false,
  properties: {
    grant: {
      enum: ['authorization_code', 'client_credentials'],
      description: 'authorization_code (default): a person signs in from the console.',
    },
    clientId: { type: 'string', minLength: 1, description: 'A client id registered beforehand.' },
    issuer: {
      type: 'string',
      pattern: '^https?://',
      description:
        'The issuer of the authorization server that registered clientId, exactly as resource metadata names it: clientId goes to no other.',
    },
    clientSecretEnv: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description: 'An environment variable holding the secret of clientId.',
    },
    clientMetadataUrl: {
      type: 'string',
      pattern: '^https://',
      description: 'A Client ID Metadata Document.',
    },
    scope: { type: 'string', minLength: 1, description: 'Scopes to ask for, space-separated.' },
  },
  // The issuer is clientId's; the client credentials grant needs the client's id and secret.
  dependentRequired: { issuer: ['clientId'] },
  if: { required: ['grant'], properties: { grant: { const: 'client_credentials' } } },
  then: { required: ['clientId', 'clientSecretEnv'] },
} as const;

export const GATEWAY_CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'toolwire gateway configuration',
  type: 'object',
  required: ['upstreams'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    upstreams: {
      type: 'object',
      description: 'Upstream MCP servers by name.',
      propertyNames: { pattern: '^[A-Za-z0-9_-]{1,32}$' },
      additionalProperties: {
        // One branch's errors, not both: an upstream with a `url` is an HTTP upstream, else a command.
        if: { type: 'object', required: ['url'] },
        then: {
          type: 'object',
          title: 'HTTP upstream',
          additionalProperties: false,
          properties: {
            url: { type: 'string', pattern: '^https?://' },
            headers: stringMap,
            bearerEnv: {
              type: 'string',
              pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
              description: 'An environment variable holding a bearer token to send.',
            },
            oauth,
            ...common,
          },
        },
        else: {
          type: 'object',
          title: 'stdio upstream',
          required: ['command'],
          additionalProperties: false,
          properties: {
            command: { type: 'string', minLength: 1, description: 'Spawned without a shell.' },
            args: { type: 'array', items: { type: 'string' } },
            env: { ...stringMap, description: "Set over the gateway's environment." },
            cwd: { type: 'string' },
            stderr: {
              enum: ['inherit', 'ignore'],
              description:
                "Passed through to the gateway's, each line prefixed [name] (inherit), or dropped.",
            },
            ...common,
          },
        },
      },
    },
    separator: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,8}$', description: 'Default "__".' },
    toolNames: { enum: ['llm', 'mcp'], description: 'llm (default): ^[a-zA-Z0-9_-]{1,64}$.' },
    policy: {
      type: 'object',
      additionalProperties: false,
      properties: {
        rules: {
          type: 'array',
          description: 'The first rule matching the upstream and the tool decides.',
          items: {
            type: 'object',
            required: ['tool', 'action'],
            additionalProperties: false,
            properties: {
              upstream: { type: 'string', minLength: 1, maxLength: 256 },
              tool: { type: 'string', minLength: 1, maxLength: 256 },
              action,
            },
          },
        },
        default: { ...action, description: 'For calls nothing else decided (default ask).' },
      },
    },
    approvals: {
      type: 'object',
      additionalProperties: false,
      properties: { timeoutMs: positiveMs, progressIntervalMs: positiveMs },
    },
    reconnect: {
      type: 'object',
      additionalProperties: false,
      properties: { initialDelayMs: positiveMs, maxDelayMs: positiveMs, checkIntervalMs: positiveMs },
    },
    redis: {
      description:
        'A Redis where instances of this gateway share approvals, grants, audit records and live events (read at start).',
      oneOf: [
        redisUrl,
        {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: {
            url: redisUrl,
            prefix: {
              type: 'string',
              minLength: 1,
              maxLength: 64,
              description: 'Key prefix (default toolwire:).',
            },
          },
        },
      ],
    },
    http,
    parkedCalls: {
      type: 'object',
      description:
        "Stateless-era calls held upstream between their caller's rounds: how long, how many (0 parks none).",
      additionalProperties: false,
      properties: {
        ttlMs: { ...positiveMs, description: 'How long one waits for its retry (default 60000).' },
        max: { ...count, description: 'How many may wait at once (default 256).' },
        maxPerCaller: { ...count, description: 'How many of one caller (default 16).' },
      },
    },
    audit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxRecords: { type: 'integer', minimum: 1, maximum: 1_000_000 },
        file: { type: 'string', minLength: 1 },
      },
    },
  },
} as const;
