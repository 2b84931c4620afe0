/**
 * How the Redis stores keep a record in a hash: one field per property, its value as JSON, so that a
 * change writes only the properties it changes (atomically, in a script) and a read gives back the
 * values as they were written (numbers, objects, strings alike).
 * @module
 */

/** A change as `HSET` pairs (field, JSON) and `HDEL` fields (the properties set to undefined). */
export interface FieldChanges {
  set: string[];
  unset: string[];
}

/** `change` as hash writes: a property set to undefined is removed, any other is written as JSON. */
export function encodeFields(change: object): FieldChanges {
  const set: string[] = [];
  const unset: string[] = [];
  for (const [field, value] of Object.entries(change)) {
    if (value === undefined) unset.push(field);
    else set.push(field, JSON.stringify(value));
  }
  return { set, unset };
}

/** A record read back from `HGETALL` (an object, or the flat array a script returns); undefined when empty. */
export function decodeFields(hash: Record<string, string> | unknown[]): Record<string, unknown> | undefined {
  const record: Record<string, unknown> = {};
  let empty = true;
  const put = (field: string, json: string) => {
    record[field] = JSON.parse(json) as unknown;
    empty = false;
  };
  if (Array.isArray(hash)) {
    for (let i = 0; i + 1 < hash.length; i += 2) put(String(hash[i]), String(hash[i + 1]));
  } else {
    for (const [field, json] of Object.entries(hash)) put(field, json);
  }
  return empty ? undefined : record;
}
