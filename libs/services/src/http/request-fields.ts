import { ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';

/**
 * The fields every request shares, whatever its use case: ids, text a person wrote, instants.
 * Their patterns and OpenAPI schemas, and the class-validator decorators that check them, so
 * that ingest, recall, users and admin refuse the same values with the same words.
 */

/**
 * Ids are opaque to engram but must be printable and bounded: 1-128 code points, no whitespace,
 * control or invisible formatting characters, and no lone surrogate (`t\ud800` and `t\udc00` would
 * encode to the same bytes and collide on one deterministic id).
 */
export const ID_MAX_LENGTH = 128;
/**
 * Spelled out range by range (JavaScript's `\s` is U+0009-000D, U+0020, U+00A0, U+1680, U+2000-200A,
 * U+2028-2029, U+202F, U+205F, U+3000, U+FEFF) so that the OpenAPI document's `pattern` means the
 * same to every regex engine that reads it.
 */
const NOT_IN_IDS = '\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u1680\\u2000-\\u200f\\u2028\\u2029\\u202f\\u205f\\u2060-\\u2064\\u3000\\ufeff';
/**
 * The document's pattern. It leaves lone surrogates out: a JSON Schema string is made of Unicode
 * scalar values, which they are not (and engines that compile patterns to UTF-8, like Rust's, refuse
 * the range). The server refuses them all the same (ID_PATTERN).
 */
export const ID_PATTERN_SOURCE = `^[^${NOT_IN_IDS}]{1,${ID_MAX_LENGTH}}$`;
export const ID_PATTERN = new RegExp(`^[^${NOT_IN_IDS}\\ud800-\\udfff]{1,${ID_MAX_LENGTH}}$`, 'u');
export const ID_MESSAGE = 'must be 1-128 characters without whitespace, control, invisible characters or lone surrogates';

/** A lone surrogate (half of a UTF-16 pair): not text, and not encodable as UTF-8. */
export const LONE_SURROGATE = /[\ud800-\udfff]/u;
/**
 * A visible character: not whitespace (JavaScript's `\s`, spelled out as for ID_PATTERN) nor an
 * invisible one. A text made only of those says nothing. Unanchored: "contains one".
 */
export const VISIBLE_PATTERN_SOURCE =
  '[^\\u0009-\\u000d\\u0020\\u00a0\\u00ad\\u034f\\u1680\\u180e\\u2000-\\u200f\\u2028\\u2029\\u202f\\u205f\\u2060-\\u2064\\u3000\\ufeff]';
// eslint-disable-next-line no-misleading-character-class -- a combining mark alone is invisible, as listed
export const VISIBLE = new RegExp(VISIBLE_PATTERN_SOURCE, 'u');

/** A text schema: at most `maxLength` code points, at least one of them visible. */
export const textSchema = (maxLength: number) => ({ minLength: 1, maxLength, pattern: VISIBLE_PATTERN_SOURCE });
/** An id schema: ID_PATTERN. */
export const idSchema = { minLength: 1, maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN_SOURCE } as const;

/** RFC 3339: a date, a time and a time zone (`Z` or `±hh:mm`); nothing a time zone could make ambiguous. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Optional, but `null` is not absent: a field sent as null is refused, not skipped. */
export const Absent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** An instant with a time zone that is a real date (not `2026-02-30T…`, not an ISO week `2026-W48-1`). */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInstant',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && INSTANT.test(value) && isRealDate(value),
        defaultMessage: (args) => `${args?.property} must be an ISO-8601 instant with a time zone, e.g. 2026-11-30T09:00:00Z`,
      },
    },
    options,
  );
}

function isRealDate(value: string): boolean {
  const time = Date.parse(value);
  if (Number.isNaN(time)) return false;
  // Date.parse rolls 02-30 over into March: the calendar date must read back the same (in its own zone).
  const [, y, m, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(value)!;
  const zone = /(Z|[+-]\d{2}:\d{2})$/i.exec(value)![1];
  const offsetMinutes =
    zone.toUpperCase() === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(time + offsetMinutes * 60_000);
  return local.getUTCFullYear() === Number(y) && local.getUTCMonth() + 1 === Number(m) && local.getUTCDate() === Number(d);
}

/** Well-formed Unicode: no lone surrogates (they are not text, and no UTF-8 encodes them). */
export function IsWellFormed(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWellFormed',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && !LONE_SURROGATE.test(value),
        defaultMessage: (args) => `${args?.property} must be well-formed Unicode (no lone surrogates)`,
      },
    },
    options,
  );
}

/** At most `max` code points (an emoji is one, as ENGRAM_MAX_TEXT_LENGTH and JSON Schema's maxLength count). */
export function MaxCodePoints(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCodePoints',
      constraints: [max],
      validator: {
        // UTF-16 length is an upper bound of the code points: most texts need no count.
        validate: (value: unknown) => typeof value === 'string' && (value.length <= max || codePointLength(value) <= max),
        defaultMessage: (args) => `${args?.property} must be at most ${max} characters (code points)`,
      },
    },
    options,
  );
}

/**
 * What is wrong with `value` as text a person wrote, for checks outside a DTO (query parameters,
 * free-form maps): not a string, lone surrogates, nothing visible, more than `max` code points.
 */
export function textProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (no lone surrogates)';
  if (!VISIBLE.test(value)) return 'must contain visible characters, not only whitespace or invisible ones';
  if (value.length > max && codePointLength(value) > max) return `must be at most ${max} characters (code points)`;
  return undefined;
}

/** Text a person wrote: well-formed (no lone surrogates) and not only whitespace or invisible characters. */
export function IsText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isText',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && VISIBLE.test(value) && !LONE_SURROGATE.test(value),
        defaultMessage: (args) =>
          typeof args?.value !== 'string'
            ? `${args?.property} must be a string`
            : LONE_SURROGATE.test(args.value)
              ? `${args.property} must be well-formed Unicode (no lone surrogates)`
              : `${args?.property} must contain visible characters, not only whitespace or invisible ones`,
      },
    },
    options,
  );
}

/** Code points, as ENGRAM_MAX_TEXT_LENGTH counts them (an emoji is one, not two UTF-16 units). */
export function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff || i === 0 || !isHighSurrogate(text.charCodeAt(i - 1))) length++;
  }
  return length;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
