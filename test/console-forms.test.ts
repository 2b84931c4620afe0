// "Try a tool" in a real browser: the form made from an inputSchema with nested objects, arrays of objects,
// anyOf, oneOf, $ref/$defs, enums, defaults and formats is filled in like a person would and the call
// reaches the upstream with exactly those arguments; invalid input shows messages at the fields and sends
// nothing.
import type { Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { Server, structured } from '../src/server/index.js';
import { openConsole, screenshot, useConsoleGateway } from './_console.js';

const SCHEMA = {
  type: 'object',
  $defs: {
    address: {
      type: 'object',
      properties: {
        street: { type: 'string' },
        city: { type: 'string', minLength: 1 },
        zip: { type: 'string', pattern: '^[0-9]{5}$' },
      },
      required: ['city', 'zip'],
    },
  },
  properties: {
    name: { type: 'string', minLength: 2 },
    email: { type: 'string', format: 'email' },
    birthday: { type: 'string', format: 'date' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    role: { type: 'string', enum: ['admin', 'editor', 'viewer'], default: 'viewer' },
    home: { $ref: '#/$defs/address' },
    contacts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: { kind: { enum: ['phone', 'email'] }, value: { type: 'string', minLength: 1 } },
        required: ['kind', 'value'],
      },
    },
    payment: {
      oneOf: [
        {
          title: 'card',
          type: 'object',
          properties: { number: { type: 'string', pattern: '^[0-9]{16}$' } },
          required: ['number'],
          additionalProperties: false,
        },
        {
          title: 'invoice',
          type: 'object',
          properties: { vatId: { type: 'string', minLength: 4 } },
          required: ['vatId'],
          additionalProperties: false,
        },
      ],
    },
    note: {
      anyOf: [
        { type: 'string', title: 'text' },
        { type: 'integer', title: 'number' },
      ],
    },
    newsletter: { type: 'boolean' },
  },
  required: ['name', 'email', 'home', 'contacts', 'payment'],
} as const;

const received: unknown[] = [];

const suite = useConsoleGateway(() => {
  const upstream = new Server({ name: 'people', version: '1.0.0' });
  upstream.tool(
    'register_person',
    { description: 'Registers a person.', inputSchema: SCHEMA, annotations: { readOnlyHint: false } },
    (args) => {
      received.push(args);
      return structured({ registered: true });
    },
  );
  return upstream;
}, [{ tool: '*', action: 'allow' }]);

beforeEach(() => {
  received.length = 0;
});

async function openForm(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const { page } = await openConsole(suite.browser, suite.fixture, {
    view: 'try/up__register_person',
    colorScheme,
  });
  await page.getByRole('form', { name: 'call up__register_person' }).waitFor();
  return page;
}

describe('Try a tool', () => {
  it('shows messages at the invalid fields and sends nothing', async () => {
    const page = await openForm();
    await page.getByLabel('name *', { exact: true }).fill('A');
    await page.getByLabel('email *', { exact: true }).fill('not-an-email');
    const home = page.getByRole('group', { name: 'home *' });
    await home.getByLabel('zip *', { exact: true }).fill('123');
    await page.getByLabel('age', { exact: true }).fill('200');
    await page.getByRole('button', { name: 'Call' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const summary = await alert.innerText();
    expect(summary).toContain('Nothing was sent');
    expect(summary).toContain('name must have at least 2 characters');
    expect(summary).toContain('email must be an email address');
    expect(summary).toContain('home/city is required');
    expect(summary).toContain('home/zip must match the pattern ^[0-9]{5}$');
    expect(summary).toContain('age must be at most 150');
    expect(summary).toContain('contacts must have at least 1 item');
    expect(await page.getByLabel('name *', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await home.getByText('must match the pattern ^[0-9]{5}$').count()).toBe(1);
    await screenshot(page, 'try-a-tool-light');
    expect(received).toEqual([]);
    expect(await suite.fixture.gateway.calls.list()).toEqual([]);
    await page.context().close();
  });

  it('fills nested objects, arrays of objects, oneOf, anyOf, $ref, enums and formats, and calls the tool with them', async () => {
    const page = await openForm('dark');
    await page.getByLabel('name *', { exact: true }).fill('Ada Lovelace');
    await page.getByLabel('email *', { exact: true }).fill('ada@example.com');
    await page.getByLabel('birthday', { exact: true }).fill('1815-12-10');
    await page.getByLabel('age', { exact: true }).fill('36');
    expect(await page.getByLabel('role', { exact: true }).inputValue()).not.toBe('-1'); // the default, viewer
    await page.getByLabel('role', { exact: true }).selectOption({ label: 'editor' });
    const home = page.getByRole('group', { name: 'home *' });
    await home.getByLabel('street', { exact: true }).fill('12 St James Square');
    await home.getByLabel('city *', { exact: true }).fill('London');
    await home.getByLabel('zip *', { exact: true }).fill('12345');
    const contacts = page.getByRole('group', { name: 'contacts *' });
    for (const [kind, value] of [
      ['phone', '+44 20 0000'],
      ['email', 'ada@example.org'],
      ['phone', 'to be removed'],
    ] as const) {
      await contacts.getByRole('button', { name: 'Add contacts' }).click();
      const item = contacts.getByRole('listitem').last();
      await item.getByLabel('kind *', { exact: true }).selectOption({ label: kind });
      await item.getByLabel('value *', { exact: true }).fill(value);
    }
    await contacts.getByRole('button', { name: 'Remove contacts 3' }).click();
    await contacts.getByRole('button', { name: 'Move contacts 2 up' }).click();
    const payment = page.getByRole('group', { name: 'payment *' });
    await payment.getByLabel('Option').selectOption({ label: 'invoice' });
    await payment.getByLabel('vatId *', { exact: true }).fill('GB123456');
    const note = page.getByRole('group', { name: 'note' });
    await note.getByLabel('Option').selectOption({ label: 'number' });
    await note.getByLabel('Value', { exact: true }).fill('42');
    await page.getByLabel('newsletter', { exact: true }).check();
    await screenshot(page, 'try-a-tool-dark');
    await page.getByRole('button', { name: 'Call' }).click();
    await page
      .getByText('matches outputSchema')
      .or(page.getByText('no outputSchema check'))
      .first()
      .waitFor();
    expect(received).toEqual([
      {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        birthday: '1815-12-10',
        age: 36,
        role: 'editor',
        home: { street: '12 St James Square', city: 'London', zip: '12345' },
        contacts: [
          { kind: 'email', value: 'ada@example.org' },
          { kind: 'phone', value: '+44 20 0000' },
        ],
        payment: { vatId: 'GB123456' },
        note: 42,
        newsletter: true,
      },
    ]);
    // The call went through the gateway with the person as the caller: the one-time link they signed in with.
    expect((await suite.fixture.gateway.calls.list())[0]?.call.caller.principal).toMatch(
      /^console-link:[0-9a-f]{8}$/,
    );
    await page.context().close();
  });

  it('sends raw JSON too, checked the same way', async () => {
    const page = await openForm();
    await page.getByLabel('Raw JSON').check();
    const raw = page.getByLabel('Arguments (JSON)');
    expect(JSON.parse(await raw.inputValue())).toEqual({ role: 'viewer', home: {}, contacts: [] });
    await raw.fill('{"name": "B"}');
    await page.getByRole('button', { name: 'Call' }).click();
    await page.getByRole('alert').getByText('name must have at least 2 characters').waitFor();
    expect(received).toEqual([]);
    await page.context().close();
  });
});
