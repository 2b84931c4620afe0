/**
 * Type-level inference of a TypeScript type from a plain JSON Schema literal declared `as const`.
 *
 * Handles `type` (including type arrays), `enum`, `const`, `properties` + `required`,
 * `additionalProperties: false`, `items`, `anyOf` and `oneOf`; anything else infers `unknown`.
 *
 * @example
 * const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } as const;
 * type T = FromJsonSchema<typeof schema>; // { a: number; [k: string]: unknown }
 * @module
 */

/** The TypeScript type of each primitive JSON Schema `type`. */
interface PrimitiveTypes {
  string: string;
  number: number;
  integer: number;
  boolean: boolean;
  null: null;
}

/** Flattens an intersection into one object type (for readable hovers and exact type equality). */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The union of the types of a list of subschemas (`anyOf`, `oneOf`). */
type UnionOf<L> = L extends readonly unknown[] ? { [I in keyof L]: FromJsonSchema<L[I]> }[number] : unknown;

/** The keys listed in `required`. */
type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;

type PropertiesOf<S> = S extends { readonly properties: infer P } ? P : Record<never, never>;

type ObjectOf<S, P = PropertiesOf<S>, R = RequiredKeys<S>> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: FromJsonSchema<P[K]> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: FromJsonSchema<P[K]>;
  } & (S extends { readonly additionalProperties: false } ? unknown : { [key: string]: unknown })
>;

type ArrayOf<S> = S extends { readonly items: infer I }
  ? I extends readonly unknown[]
    ? unknown[]
    : FromJsonSchema<I>[]
  : unknown[];

/** The type of one `type` name in schema `S`. */
type OfTypeName<N, S> = N extends 'object'
  ? ObjectOf<S>
  : N extends 'array'
    ? ArrayOf<S>
    : N extends keyof PrimitiveTypes
      ? PrimitiveTypes[N]
      : unknown;

/** The type of `type`: one name, or a union for a list of names. */
type OfType<T, S> = T extends readonly (infer N)[] ? OfTypeName<N, S> : OfTypeName<T, S>;

/**
 * The TypeScript type described by a JSON Schema literal (declare it `as const`).
 * Precedence: `const`, `enum`, `anyOf`, `oneOf`, `type`; otherwise `unknown`.
 */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: infer L }
      ? UnionOf<L>
      : S extends { readonly oneOf: infer L }
        ? UnionOf<L>
        : S extends { readonly type: infer T }
          ? OfType<T, S>
          : unknown;
