/**
 * Minimal inline types for Standard Schema v1 and Standard JSON Schema v1 (https://standardschema.dev),
 * written here so toolwire depends on no schema library. zod v4 schemas implement both.
 * @module
 */

/** The typed part shared by Standard Schema and Standard JSON Schema. */
export interface StandardTypedV1Props<Input = unknown, Output = Input> {
  /** The version of the standard: always 1. */
  readonly version: 1;
  /** The library that implements it, e.g. `'zod'`. */
  readonly vendor: string;
  /** Phantom types for inference; never present at run time. */
  readonly types?: StandardTypesV1<Input, Output> | undefined;
}

export interface StandardTypesV1<Input = unknown, Output = Input> {
  readonly input: Input;
  readonly output: Output;
}

/** A path segment of a Standard Schema issue. */
export interface StandardPathSegmentV1 {
  readonly key: PropertyKey;
}

export interface StandardIssueV1 {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegmentV1> | undefined;
}

export type StandardResultV1<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssueV1> };

export interface StandardSchemaV1Props<Input = unknown, Output = Input> extends StandardTypedV1Props<
  Input,
  Output
> {
  /** Validates (and possibly transforms) a value; may be asynchronous. */
  readonly validate: (value: unknown) => StandardResultV1<Output> | Promise<StandardResultV1<Output>>;
  /** Present when the schema is also a Standard JSON Schema. */
  readonly jsonSchema?: StandardJsonSchemaV1Converter | undefined;
}

/** The JSON Schema targets toolwire asks for. */
export type StandardJsonSchemaTarget = 'draft-2020-12' | 'draft-07';

export interface StandardJsonSchemaV1Options {
  readonly target: StandardJsonSchemaTarget;
}

/** Produces the JSON Schema of the input or output type; may throw when it cannot be represented. */
export interface StandardJsonSchemaV1Converter {
  readonly input: (options: StandardJsonSchemaV1Options) => Record<string, unknown>;
  readonly output: (options: StandardJsonSchemaV1Options) => Record<string, unknown>;
}

export interface StandardJsonSchemaV1Props<Input = unknown, Output = Input> extends StandardTypedV1Props<
  Input,
  Output
> {
  readonly jsonSchema: StandardJsonSchemaV1Converter;
}

/** A Standard Schema v1: something with a `~standard` property that can validate. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1Props<Input, Output>;
}

/** A Standard JSON Schema v1: something with a `~standard` property that can produce JSON Schema. */
export interface StandardJsonSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardJsonSchemaV1Props<Input, Output>;
}

/** The input type of a Standard Schema. */
export type InferInput<S extends { readonly '~standard': StandardTypedV1Props }> = NonNullable<
  S['~standard']['types']
>['input'];

/** The output type of a Standard Schema (what validation returns). */
export type InferOutput<S extends { readonly '~standard': StandardTypedV1Props }> = NonNullable<
  S['~standard']['types']
>['output'];

function standardProps(value: unknown): Record<string, unknown> | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  const props = (value as { '~standard'?: unknown })['~standard'];
  if (typeof props !== 'object' || props === null) return undefined;
  return (props as { version?: unknown }).version === 1 ? (props as Record<string, unknown>) : undefined;
}

/** True for a Standard Schema v1 (an object or function whose `~standard` has version 1 and `validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof standardProps(value)?.validate === 'function';
}

/** True for a Standard JSON Schema v1 (`~standard.jsonSchema` has `input` and `output` functions). */
export function isStandardJsonSchema(value: unknown): value is StandardJsonSchemaV1 {
  const converter = standardProps(value)?.jsonSchema as Record<string, unknown> | null | undefined;
  return (
    typeof converter === 'object' &&
    converter !== null &&
    typeof converter.input === 'function' &&
    typeof converter.output === 'function'
  );
}
