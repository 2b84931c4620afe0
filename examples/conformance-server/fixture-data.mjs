// The data of the conformance fixture (the tools, resources and prompts the suite's server scenarios
// ask for), shared by the toolwire fixture (index.mjs) and the official-SDK baseline (sdk-baseline.mjs)
// so that both serve the same thing.

/** A valid 1x1 PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A valid WAV: RIFF header, PCM mono 8 kHz 8-bit, 8 samples of silence. */
export const WAV_BASE64 = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const ERROR_TEXT = 'This tool intentionally returns an error for testing';

export const EMBEDDED_RESOURCE = {
  uri: 'test://embedded-resource',
  mimeType: 'text/plain',
  text: 'This is an embedded resource content.',
};

export const MIXED_RESOURCE = {
  uri: 'test://mixed-content-resource',
  mimeType: 'application/json',
  text: '{"test":"data","value":123}',
};

export const LOG_MESSAGES = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];

export const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  // The vocabulary SEP-2106 (2026-07-28) allows beyond type/properties/required: composition and conditionals.
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** The form of `test_elicitation`. */
export const USER_SCHEMA = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "The user's name" },
    email: { type: 'string', description: "The user's email address" },
  },
  required: ['username', 'email'],
};

/** SEP-1034: one defaulted field per primitive type. */
export const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
};

/** SEP-1330: the five enum shapes. */
export const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Untitled single-select',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled enum (enumNames, deprecated)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multi-select',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

export const STATIC_TEXT = 'This is the content of the static text resource.';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of a sampling reply (a content block, or an array of them since 2025-11-25). */
export function samplingText(result) {
  const blocks = Array.isArray(result?.content) ? result.content : [result?.content];
  return blocks
    .filter((block) => block?.type === 'text')
    .map((block) => block.text)
    .join('');
}

export function elicitationSummary(prefix, result) {
  return `${prefix}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
}

/** Values offered by `completion/complete` for `test_prompt_with_arguments`. */
export function completeArgument(value) {
  return ['paris', 'park', 'party', 'test', 'testing'].filter((candidate) =>
    candidate.startsWith(value ?? ''),
  );
}
