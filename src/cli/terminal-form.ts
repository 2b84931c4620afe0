/**
 * One field of an elicitation form, as `toolwire call` asks for it on the terminal: the question (title,
 * kind, choices, bounds, default) and the typed answer read back as the field's value, checked against
 * the field's own schema (the form validator: bounds, lengths, patterns, formats).
 *
 * | field (requestedSchema property) | typed as                                                    |
 * | -------------------------------- | ----------------------------------------------------------- |
 * | string                           | the text as typed                                           |
 * | number / integer                 | a number                                                    |
 * | boolean                          | y, yes, true / n, no, false                                 |
 * | single choice (enum, oneOf)      | a value, its title, or its number in the list               |
 * | multiple choice (array of those) | a comma-separated list of the same                          |
 *
 * An empty answer keeps the field's default, or leaves an optional field out.
 * @module
 */
import { compileJsonSchema, isJsonObject, type JsonObject } from '../index.js';

export type FieldValue = string | number | boolean | string[];

interface Choice {
  value: string;
  title: string;
}

/** Choices shown in a question; a longer list is cut (every value is still accepted). */
const SHOWN_CHOICES = 30;

/** The choices of a single-select schema (`enum`, with `enumNames` titles, or `oneOf` of `const`s), if any. */
function choicesOf(schema: JsonObject): Choice[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({
      value: String(value),
      title: typeof names[i] === 'string' ? names[i] : String(value),
    }));
  }
  const options = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : [];
  const choices = options.flatMap((option) =>
    isJsonObject(option) && typeof option.const === 'string'
      ? [{ value: option.const, title: typeof option.title === 'string' ? option.title : option.const }]
      : [],
  );
  return choices.length > 0 ? choices : undefined;
}

function describeChoices(choices: readonly Choice[]): string {
  const shown = choices
    .slice(0, SHOWN_CHOICES)
    .map((c, i) => `${i + 1}) ${c.title === c.value ? c.value : `${c.title} [${c.value}]`}`);
  if (choices.length > SHOWN_CHOICES) shown.push(`… ${choices.length - SHOWN_CHOICES} more`);
  return shown.join(', ');
}

/** The question for one field, e.g. `Your name (name; text, required): `. */
export function fieldPrompt(key: string, schema: JsonObject, required: boolean): string {
  const head = typeof schema.title === 'string' ? `${schema.title} (${key}; ` : `${key} (`;
  const parts: string[] = [];
  const items = isJsonObject(schema.items) ? schema.items : undefined;
  const single = choicesOf(schema);
  const multiple = schema.type === 'array' && items ? choicesOf(items) : undefined;
  if (single) parts.push(`one of: ${describeChoices(single)}`);
  else if (multiple) parts.push(`any of, comma-separated: ${describeChoices(multiple)}`);
  else if (schema.type === 'boolean') parts.push('yes/no');
  else if (schema.type === 'number' || schema.type === 'integer') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
    const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    const bounds =
      min !== undefined && max !== undefined
        ? ` ${min}–${max}`
        : min !== undefined
          ? ` ≥ ${min}`
          : max !== undefined
            ? ` ≤ ${max}`
            : '';
    parts.push(`${schema.type === 'integer' ? 'a whole number' : 'a number'}${bounds}`);
  } else parts.push(typeof schema.format === 'string' ? `text, ${schema.format}` : 'text');
  if (required) parts.push('required');
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  const description = typeof schema.description === 'string' ? ` — ${schema.description}` : '';
  return `  ${head}${parts.join('; ')})${description}: `;
}

/** A typed choice: its value, its title (any case), or its number in the list. */
function pickChoice(typed: string, choices: readonly Choice[]): string | undefined {
  const lower = typed.toLowerCase();
  const byNumber = /^\d+$/.test(typed) ? choices[Number(typed) - 1] : undefined;
  return (
    choices.find((c) => c.value === typed)?.value ??
    choices.find((c) => c.title.toLowerCase() === lower)?.value ??
    byNumber?.value
  );
}

export type FieldAnswer = { ok: true; value: FieldValue | undefined } | { ok: false; problem: string };

/** What was typed for one field, as the field's value (undefined: left out), or what is wrong with it. */
export function readField(typed: string, key: string, schema: JsonObject, required: boolean): FieldAnswer {
  const raw = typed.trim();
  if (raw === '') {
    if (schema.default !== undefined) return checked(key, schema, schema.default as FieldValue);
    return required ? { ok: false, problem: 'an answer is required' } : { ok: true, value: undefined };
  }
  const single = choicesOf(schema);
  const items = isJsonObject(schema.items) ? schema.items : undefined;
  const multiple = schema.type === 'array' && items ? choicesOf(items) : undefined;
  if (single) {
    const value = pickChoice(raw, single);
    return value === undefined
      ? { ok: false, problem: `not one of the choices: ${raw}` }
      : checked(key, schema, value);
  }
  if (multiple) {
    const picked: string[] = [];
    for (const part of raw
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '')) {
      const value = pickChoice(part, multiple);
      if (value === undefined) return { ok: false, problem: `not one of the choices: ${part}` };
      if (!picked.includes(value)) picked.push(value);
    }
    return checked(key, schema, picked);
  }
  if (schema.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(raw)) return checked(key, schema, true);
    if (/^(n|no|false)$/i.test(raw)) return checked(key, schema, false);
    return { ok: false, problem: 'answer yes or no' };
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const value = Number(raw);
    return Number.isFinite(value)
      ? checked(key, schema, value)
      : { ok: false, problem: `not a number: ${raw}` };
  }
  return checked(key, schema, raw);
}

/** The value, if the field's own schema allows it. */
function checked(key: string, schema: JsonObject, value: FieldValue): FieldAnswer {
  let outcome;
  try {
    outcome = compileJsonSchema(schema)(value);
  } catch {
    return { ok: true, value }; // a field this client cannot compile: the server checks it
  }
  return outcome.ok
    ? { ok: true, value }
    : { ok: false, problem: outcome.issues.map((issue) => issue.message).join('; ') };
}
