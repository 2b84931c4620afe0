/**
 * The `format` checks of every ajv instance: ajv-formats' full set, except two that did not run in linear
 * time on caller input. `regex` compiled the value with the backtracking `RegExp`; it now accepts what
 * toolwire runs as a pattern (see `isLinearPattern`). `url` took 213 ms for 4,000 characters and ≈25 times
 * as long for each quadrupling (its `\S+(?::\S*)?@` and its private-network lookaheads backtrack); it now
 * runs on the linear-time engine, with the lookaheads written out as alternatives. The others were measured
 * linear on long adversarial inputs (see formats.test.ts).
 * @module
 */
import ajvFormatsImport, { type FormatsPlugin } from 'ajv-formats';
import { LinearRegExp, isLinearPattern } from './linear-regexp.js';

// ajv and ajv-formats are CommonJS; under NodeNext the default import of ajv-formats is typed as the module
// object, while at run time it is the plugin itself (which also carries `.default`).
const addFormats: FormatsPlugin =
  (ajvFormatsImport as unknown as { default?: FormatsPlugin }).default ??
  (ajvFormatsImport as unknown as FormatsPlugin);

type FormatTarget = Parameters<FormatsPlugin>[0];

/** An octet of ajv-formats' url (`0`–`255`, with the leading zeros it allows), and its last octet (`1`–`254`). */
const OCTET = '(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])';
const LAST_OCTET = '(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4])';

/**
 * ajv-formats' public IPv4 host, `(?!10.|127.)(?!169.254.|192.168.)(?!172.16-31.)` followed by a first
 * octet of 1–223, spelled without lookahead: the first two octets, then two more.
 */
const PUBLIC_IPV4 =
  '(?:(?:[1-9]|1[1-9]|[2-9]\\d|1[01]\\d|12[0-689]|1[3-58]\\d|16[0-8]|17[013-9]|19[013-9]|2[01]\\d|22[0-3])' +
  `\\.${OCTET}` +
  '|169\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-35])' +
  '|172\\.(?:\\d|0\\d|1[0-5]|3[2-9]|[4-9]\\d|1\\d\\d|2[0-4]\\d|25[0-5])' +
  '|192\\.(?:\\d{1,2}|1[0-57-9]\\d|16[0-79]|2[0-4]\\d|25[0-5]))' +
  `\\.${OCTET}\\.${LAST_OCTET}`;

const LABEL = '(?:[a-z0-9\\u{00a1}-\\u{ffff}]+-)*[a-z0-9\\u{00a1}-\\u{ffff}]+';

/** ajv-formats' `url` (after dperini's), case-insensitive. */
export const URL_PATTERN =
  '^(?:https?|ftp):\\/\\/(?:\\S+(?::\\S*)?@)?' +
  `(?:${PUBLIC_IPV4}|(?:${LABEL})(?:\\.${LABEL})*(?:\\.(?:[a-z\\u{00a1}-\\u{ffff}]{2,})))` +
  '(?::\\d{2,5})?(?:\\/[^\\s]*)?$';

let url: LinearRegExp | undefined;

/** Adds the formats to an ajv instance. */
export function addSchemaFormats(ajv: FormatTarget): void {
  addFormats(ajv);
  ajv.addFormat('regex', { type: 'string', validate: isLinearPattern });
  ajv.addFormat('url', {
    type: 'string',
    validate: (value: string) => (url ??= new LinearRegExp(URL_PATTERN, 'i')).test(value),
  });
}
