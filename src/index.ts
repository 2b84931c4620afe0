/**
 * `toolwire`: the Model Context Protocol tools feature on both ends of the wire.
 * This entry point is runtime-neutral (no Node.js imports): the protocol core, the server and the
 * client. Transports live in `toolwire/stdio` and `toolwire/in-memory`.
 * Everything exported here is public API.
 * @module toolwire
 */
export * from './protocol/index.js';
export * from './server/index.js';
export * from './client/index.js';
export {
  SchemaError,
  compileJsonSchema,
  formatIssues,
  type SchemaInput,
  type InferSchema,
  type JsonSchema,
  type ValidationIssue,
  type ValidationOutcome,
  type Validator,
  type StandardSchemaV1,
  type StandardSchemaV1Props,
  type StandardJsonSchemaV1Converter,
  type StandardJsonSchemaV1Options,
  type StandardJsonSchemaTarget,
  type StandardTypesV1,
  type StandardTypedV1Props,
  type StandardResultV1,
  type StandardIssueV1,
  type StandardPathSegmentV1,
  type InferInput,
  type InferOutput,
  type FromJsonSchema,
} from './schema/index.js';
