// Output attacks on the server's sanitizer: tool results an attacker shapes (a fetch or file tool that
// reflects their text) — text built to slow a naive secret redactor, results of 8 to 64 MiB, image bytes that
// lie about their type or are not base64 (not base64: an isError, a bug in the tool), structuredContent full
// of secret-looking strings. Each result comes back redacted, truncated or refused as the README says,
// quickly, and nobody else waits.
import { callAttack, firstText } from './lib/call-attack.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;
const BAIT = ['pem', 'bearer', 'named', 'aws', 'jwt', 'mixed'];
const MARKER = /truncated|\[REDACTED\]/;

/** What is wrong with a text result of a reflect call of `bytes` (undefined: nothing). */
const sane = (bytes) => (result) => {
  if (result.isError) return `isError: ${firstText(result).slice(0, 120)}`;
  const text = firstText(result);
  if (text.length > MiB + 1024) return `${text.length} characters: over the 1 MiB cap`;
  if (bytes > MiB && !MARKER.test(text.slice(-300)))
    return 'a result over the cap without a truncation marker';
  return undefined;
};

export default [
  callAttack(
    'redactor-bait',
    'text shaped against the secret patterns (PEM headers without footers, runs of spaces after Bearer and api_key, AKIA…, eyJ…) at 64 KiB to 1 MiB',
    (quick) =>
      (quick ? [64 * KiB, 256 * KiB] : [64 * KiB, 256 * KiB, MiB]).flatMap((bytes) =>
        BAIT.map((kind) => ({
          what: `${kind} x ${bytes / KiB} KiB`,
          tool: 'reflect',
          args: { kind, bytes },
          expect: sane(bytes),
        })),
      ),
  ),
  callAttack('huge-results', 'results of 8 to 64 MiB: cut to the 1 MiB cap with a visible marker', (quick) =>
    (quick ? [8 * MiB] : [8 * MiB, 32 * MiB, 64 * MiB]).map((bytes) => ({
      what: `${bytes / MiB} MiB of text`,
      tool: 'reflect',
      args: { kind: 'plain', bytes },
      expect: sane(bytes),
    })),
  ),
  callAttack(
    'bad-images',
    'image blocks whose bytes lie (PNG labelled JPEG, not base64, truncated, 3 MiB of zeros as PNG)',
    (quick) =>
      Array.from({ length: quick ? 2 : 10 }, () => ['mislabelled', 'not-base64', 'truncated', 'zeros'])
        .flat()
        .map((kind) => ({
          what: `image: ${kind}`,
          tool: 'bad_image',
          args: { kind },
          expect: (result) => {
            const images = result.content.filter((b) => b.type === 'image');
            if (images.length > 0)
              return `an image block got through: ${images[0].mimeType}, ${String(images[0].data).length} characters`;
            // Data that is not base64 is a bug in the tool: an isError result naming it (and onToolBug).
            if (kind === 'not-base64')
              return result.isError && /whose data is not base64/.test(firstText(result))
                ? undefined
                : `not an isError naming the data that is not base64: ${JSON.stringify(result).slice(0, 160)}`;
            const notes = result.content.filter((b) => b.type === 'text' && /removed/.test(b.text));
            return notes.length === 1
              ? undefined
              : `no note saying the image was removed: ${JSON.stringify(result).slice(0, 160)}`;
          },
        })),
  ),
  callAttack(
    'structured-bait',
    'structuredContent with a long Bearer run and 1000 ghp_ strings, 64 KiB to 2 MiB',
    (quick) =>
      (quick ? [64 * KiB] : [64 * KiB, 512 * KiB, 2 * MiB]).map((bytes) => ({
        what: `structured ${bytes / KiB} KiB`,
        tool: 'structured_bait',
        args: { bytes },
        expect: (result) => {
          if (result.isError) return bytes > MiB ? undefined : `isError: ${firstText(result).slice(0, 120)}`;
          return typeof result.structuredContent?.note === 'string' ? undefined : 'no structuredContent';
        },
      })),
  ),
];
