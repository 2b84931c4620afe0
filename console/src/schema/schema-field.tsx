// The form for one value of a JSON Schema, recursively: objects as fieldsets of their properties
// (required ones marked), arrays as lists a person can add to, remove from and reorder, anyOf/oneOf as a
// picker of the option plus that option's form, enums as a select, strings by format (date, email, URL…),
// numbers and integers with their bounds, booleans as a checkbox, and anything else as JSON text.
// Labels, descriptions and messages are text; each control is labelled and says when it is invalid.
import { useState } from 'preact/hooks';
import {
  branchLabel,
  initialValue,
  isObject,
  MAX_FORM_DEPTH,
  resolve,
  typesOf,
  type Schema,
  type SchemaObject,
} from './schema.js';
import { equal, validate } from './validate.js';

export interface FieldProps {
  schema: Schema | undefined;
  root: Schema | undefined;
  value: unknown;
  onChange: (value: unknown) => void;
  /** A JSON pointer to this value ('' for the whole). */
  path: string;
  label: string;
  required: boolean;
  /** Messages by path (shown once the person tried to send). */
  issues: ReadonlyMap<string, string[]>;
  /** Fields whose text is not a value yet (JSON that does not parse): path → message, or undefined when fixed. */
  unparsed: (path: string, message: string | undefined) => void;
  depth?: number;
}

export function fieldId(path: string): string {
  return `field${path.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}

function Messages({ path, issues }: { path: string; issues: ReadonlyMap<string, string[]> }) {
  const messages = issues.get(path);
  if (!messages?.length) return null;
  return (
    <ul class="field-issues" id={`${fieldId(path)}-issues`}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

/** The ' *' after the name of a field the schema requires. */
function RequiredMark({ required }: { required: boolean }) {
  return required ? (
    <span class="required" title="required">
      {' '}
      *
    </span>
  ) : null;
}

function Label({ props, schema }: { props: FieldProps; schema: SchemaObject }) {
  return (
    <label for={fieldId(props.path)} class="field-label">
      {schema.title ?? props.label}
      <RequiredMark required={props.required} />
    </label>
  );
}

function Description({ schema }: { schema: SchemaObject }) {
  return typeof schema.description === 'string' ? (
    <p class="field-description">{schema.description}</p>
  ) : null;
}

/** Attributes every control has: id, invalid state, messages. */
function control(props: FieldProps) {
  const invalid = (props.issues.get(props.path)?.length ?? 0) > 0;
  return {
    id: fieldId(props.path),
    'aria-invalid': invalid ? ('true' as const) : undefined,
    'aria-describedby': invalid ? `${fieldId(props.path)}-issues` : undefined,
    'aria-required': props.required ? ('true' as const) : undefined,
  };
}

/** Merges an anyOf/oneOf option with what the schema says beside the combinator. */
function withBase(base: SchemaObject, branch: SchemaObject): SchemaObject {
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = base;
  return {
    ...rest,
    ...branch,
    properties: { ...(rest.properties ?? {}), ...(branch.properties ?? {}) },
    required: [...(rest.required ?? []), ...(branch.required ?? [])],
  };
}

function Branches(props: FieldProps & { resolved: SchemaObject; branches: Schema[] }) {
  const { resolved, branches, root, value } = props;
  const [picked, setPicked] = useState(() => {
    const index = branches.findIndex(
      (branch) => value !== undefined && validate(branch, value, root).length === 0,
    );
    return index === -1 ? 0 : index;
  });
  const branch = withBase(resolved, resolve(branches[picked], root));
  const pickerId = `${fieldId(props.path)}-option`;
  return (
    <fieldset class="field branches">
      <legend>
        {resolved.title ?? props.label}
        <RequiredMark required={props.required} />
      </legend>
      <Description schema={resolved} />
      <label for={pickerId} class="field-label">
        Option
      </label>
      <select
        id={pickerId}
        value={String(picked)}
        onChange={(event) => {
          const index = Number((event.target as HTMLSelectElement).value);
          setPicked(index);
          props.onChange(initialValue(withBase(resolved, resolve(branches[index], root)), root, true));
        }}
      >
        {branches.map((option, index) => (
          <option key={index} value={String(index)}>
            {branchLabel(option, root, index)}
          </option>
        ))}
      </select>
      <SchemaField
        {...props}
        key={picked}
        depth={(props.depth ?? 0) + 1}
        schema={{ ...branch, title: undefined, description: undefined }}
        label="Value"
      />
    </fieldset>
  );
}

function ObjectField(props: FieldProps & { resolved: SchemaObject }) {
  const { resolved, issues } = props;
  const value = isObject(props.value) ? props.value : {};
  const required = new Set(resolved.required ?? []);
  const depth = props.depth ?? 0;
  const Wrapper = depth === 0 ? 'div' : 'fieldset';
  return (
    <Wrapper class="field object" id={depth === 0 ? undefined : fieldId(props.path)}>
      {depth > 0 && (
        <legend>
          {resolved.title ?? props.label}
          <RequiredMark required={props.required} />
        </legend>
      )}
      {depth > 0 && <Description schema={resolved} />}
      <Messages path={props.path} issues={issues} />
      {Object.entries(resolved.properties ?? {}).map(([key, sub]) => (
        <SchemaField
          key={key}
          {...props}
          depth={depth + 1}
          schema={sub}
          label={key}
          path={`${props.path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`}
          required={required.has(key)}
          value={value[key]}
          onChange={(next) => {
            const updated = { ...value };
            if (next === undefined) delete updated[key];
            else updated[key] = next;
            const empty = Object.keys(updated).length === 0;
            props.onChange(empty && !props.required && depth > 0 ? undefined : updated);
          }}
        />
      ))}
    </Wrapper>
  );
}

function ArrayField(props: FieldProps & { resolved: SchemaObject }) {
  const { resolved, root } = props;
  const items: unknown[] = Array.isArray(props.value) ? (props.value as unknown[]) : [];
  const tuple = Array.isArray(resolved.prefixItems) ? resolved.prefixItems : [];
  const schemaAt = (index: number): Schema | undefined =>
    index < tuple.length ? tuple[index] : Array.isArray(resolved.items) ? undefined : resolved.items;
  const label = resolved.title ?? props.label;
  const set = (next: unknown[]) => props.onChange(next.length === 0 && !props.required ? undefined : next);
  const move = (from: number, to: number) => {
    const next = [...items];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved);
    set(next);
  };
  return (
    <fieldset class="field array" id={fieldId(props.path)}>
      <legend>
        {label}
        <RequiredMark required={props.required} />
      </legend>
      <Description schema={resolved} />
      <Messages path={props.path} issues={props.issues} />
      <ol class="array-items">
        {items.map((item, index) => (
          <li key={index} class="array-item">
            <SchemaField
              {...props}
              depth={(props.depth ?? 0) + 1}
              schema={schemaAt(index)}
              label={`${label} ${index + 1}`}
              path={`${props.path}/${index}`}
              required
              value={item}
              onChange={(next) => set(items.map((old, i) => (i === index ? next : old)))}
            />
            <div class="array-controls">
              <button
                type="button"
                aria-label={`Move ${label} ${index + 1} up`}
                disabled={index === 0}
                onClick={() => move(index, index - 1)}
              >
                ↑
              </button>
              <button
                type="button"
                aria-label={`Move ${label} ${index + 1} down`}
                disabled={index === items.length - 1}
                onClick={() => move(index, index + 1)}
              >
                ↓
              </button>
              <button
                type="button"
                aria-label={`Remove ${label} ${index + 1}`}
                onClick={() => set(items.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </div>
          </li>
        ))}
      </ol>
      <button
        type="button"
        class="add-item"
        aria-label={`Add ${label}`}
        onClick={() => set([...items, initialValue(schemaAt(items.length), root, true)])}
      >
        + Add
      </button>
    </fieldset>
  );
}

function EnumField(props: FieldProps & { resolved: SchemaObject; options: unknown[] }) {
  const { options, value } = props;
  const index = options.findIndex((option) => equal(option, value));
  return (
    <div class="field">
      <Label props={props} schema={props.resolved} />
      <Description schema={props.resolved} />
      <select
        {...control(props)}
        value={String(index)}
        onChange={(event) => {
          const picked = Number((event.target as HTMLSelectElement).value);
          props.onChange(picked === -1 ? undefined : options[picked]);
        }}
      >
        {(index === -1 || !props.required) && <option value="-1">—</option>}
        {options.map((option, i) => (
          <option key={i} value={String(i)}>
            {typeof option === 'string' ? option : JSON.stringify(option)}
          </option>
        ))}
      </select>
      <Messages path={props.path} issues={props.issues} />
    </div>
  );
}

const INPUT_TYPES: Record<string, 'date' | 'email' | 'url' | 'text'> = {
  date: 'date',
  email: 'email',
  uri: 'url',
  url: 'url',
  time: 'text',
};

function ScalarField(props: FieldProps & { resolved: SchemaObject; type: string }) {
  const { resolved, type, value } = props;
  if (type === 'boolean') {
    return (
      <div class="field checkbox">
        <input
          {...control(props)}
          type="checkbox"
          checked={value === true}
          onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
        />
        <Label props={props} schema={resolved} />
        <Description schema={resolved} />
        <Messages path={props.path} issues={props.issues} />
      </div>
    );
  }
  const numeric = type === 'number' || type === 'integer';
  const bounds = numeric
    ? {
        min: resolved.minimum ?? resolved.exclusiveMinimum,
        max: resolved.maximum ?? resolved.exclusiveMaximum,
        step: type === 'integer' ? (resolved.multipleOf ?? 1) : (resolved.multipleOf ?? 'any'),
      }
    : { minLength: resolved.minLength, maxLength: resolved.maxLength };
  const inputType = numeric ? ('number' as const) : (INPUT_TYPES[resolved.format ?? ''] ?? 'text');
  const placeholder =
    resolved.format === 'date-time'
      ? 'YYYY-MM-DDTHH:MM:SSZ'
      : resolved.format === 'time'
        ? 'HH:MM:SSZ'
        : undefined;
  return (
    <div class="field">
      <Label props={props} schema={resolved} />
      <Description schema={resolved} />
      <input
        {...control(props)}
        {...bounds}
        // (one of text, number, date, email, url: Preact's types want a single literal)
        type={inputType as 'text'}
        placeholder={placeholder}
        value={typeof value === 'string' || typeof value === 'number' ? String(value) : ''}
        onInput={(event) => {
          const text = (event.target as HTMLInputElement).value;
          if (text === '') return props.onChange(undefined);
          if (!numeric) return props.onChange(text);
          const number = Number(text);
          props.onChange(Number.isFinite(number) ? number : text);
        }}
      />
      {resolved.pattern !== undefined && <p class="field-description">Pattern: {resolved.pattern}</p>}
      <Messages path={props.path} issues={props.issues} />
    </div>
  );
}

function JsonField(props: FieldProps & { resolved: SchemaObject }) {
  const [text, setText] = useState(() =>
    props.value === undefined ? '' : JSON.stringify(props.value, null, 2),
  );
  const [problem, setProblem] = useState<string | undefined>(undefined);
  return (
    <div class="field">
      <Label props={props} schema={props.resolved} />
      <Description schema={props.resolved} />
      <textarea
        {...control(props)}
        rows={3}
        value={text}
        spellcheck={false}
        onInput={(event) => {
          const next = (event.target as HTMLTextAreaElement).value;
          setText(next);
          if (next.trim() === '') {
            setProblem(undefined);
            props.unparsed(props.path, undefined);
            return props.onChange(undefined);
          }
          try {
            props.onChange(JSON.parse(next));
            setProblem(undefined);
            props.unparsed(props.path, undefined);
          } catch {
            setProblem('is not valid JSON');
            props.unparsed(props.path, 'is not valid JSON');
          }
        }}
      />
      {problem && <p class="field-issues">{problem}</p>}
      <Messages path={props.path} issues={props.issues} />
    </div>
  );
}

export function SchemaField(props: FieldProps) {
  const resolved = resolve(props.schema, props.root);
  if ((props.depth ?? 0) > MAX_FORM_DEPTH) return <JsonField {...props} resolved={resolved} />;
  const branches = resolved.oneOf ?? resolved.anyOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const consts = branches.map((b) => resolve(b, props.root));
    if (consts.every((b) => 'const' in b))
      return <EnumField {...props} resolved={resolved} options={consts.map((b) => b.const)} />;
    return <Branches {...props} resolved={resolved} branches={branches} />;
  }
  if (Array.isArray(resolved.enum))
    return <EnumField {...props} resolved={resolved} options={resolved.enum} />;
  if ('const' in resolved) {
    return (
      <div class="field">
        <span class="field-label">{resolved.title ?? props.label}</span>
        <code class="const">{JSON.stringify(resolved.const)}</code>
      </div>
    );
  }
  const [type] = typesOf(resolved);
  if (type === 'object' && isObject(resolved.properties))
    return <ObjectField {...props} resolved={resolved} />;
  if (type === 'array') return <ArrayField {...props} resolved={resolved} />;
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return <ScalarField {...props} resolved={resolved} type={type} />;
  }
  if (type === 'null') {
    return (
      <div class="field">
        <span class="field-label">{resolved.title ?? props.label}</span>
        <code class="const">null</code>
      </div>
    );
  }
  return <JsonField {...props} resolved={resolved} />;
}
