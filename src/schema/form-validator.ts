/**
 * The validator of an elicitation form's `requestedSchema`, for the content a form is accepted with (the
 * spec: clients SHOULD validate their responses, and servers the data they receive, against the requested
 * schema; the client and the server both use it). Compiled once per schema: by
 * the schema object (a constant, as most forms are), else by its canonical text (a form written inline in
 * the handler is the same text each call); the last 64 texts are kept.
 * @module
 */
import { canonicalJson } from '../protocol/canonical-json.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { keepNewest } from '../protocol/keep-newest.js';
import { compileJsonSchema, type Validator } from './compile.js';

/** How many compiled forms are kept by their text. */
const KEPT_BY_TEXT = 64;

const byObject = new WeakMap<object, Validator<unknown>>();
const byText = new Map<string, Validator<unknown>>();

/** The form's validator; throws the SchemaError of a schema that does not compile. */
export function formValidator(schema: JsonObject): Validator<unknown> {
  const kept = byObject.get(schema);
  if (kept) return kept;
  const text = canonicalJson(schema);
  let validate = byText.get(text);
  if (validate)
    byText.delete(text); // kept as the most recent
  else validate = compileJsonSchema(schema);
  byText.set(text, validate);
  keepNewest(byText, KEPT_BY_TEXT);
  byObject.set(schema, validate);
  return validate;
}
