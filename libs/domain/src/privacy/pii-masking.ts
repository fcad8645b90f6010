import { NOT_PII_NUMBER_CUES, PII_DETECTORS, PiiCheck, PiiType, SECRET_STOP_WORDS } from './pii-masking.config';

export { PII_TYPES, type PiiType } from './pii-masking.config';

/**
 * PII masking: raw identifiers never reach the log, the index or a prompt. Each match becomes a
 * typed placeholder (`[PHONE]`), so text stays readable and the extractor still knows that
 * "我的手机号是[PHONE]" is about a phone number.
 *
 * Long numbers are masked by shape: a mistyped card or id is still someone's. The checksums (Luhn
 * for cards, GB 11643 for resident ids) only raise confidence: a number that fails its checksum
 * right after "订单号" / "tracking number" is kept. Placeholders never match any detector, so
 * masking is idempotent. The patterns and cue words are data, in `pii-masking.config.ts`.
 */

export interface MaskResult {
  readonly text: string;
  /** Distinct types found, sorted. */
  readonly masked: PiiType[];
}

interface Detector {
  readonly type: PiiType;
  readonly pattern: RegExp;
  /** Whether the value (and the text before the match) is masked; absent: always. */
  readonly accept?: (value: string, before: string) => boolean;
}

const notPiiCue = new RegExp(
  `(?:${NOT_PII_NUMBER_CUES.map(escapeRegExp).join('|')})\\s*(?:no\\.?|number|#|id|号码?)?\\s*(?:is|是|为|:|：)?\\s*$`,
  'i',
);
const secretStopWords = new Set(SECRET_STOP_WORDS.map((w) => w.toLowerCase()));

const CHECKS: Record<PiiCheck, (value: string, before: string) => boolean> = {
  // A cue followed by an ordinary word ("the password manager") is not a secret; a secret has a Latin letter, digit or symbol.
  notCueWord: (v) => !secretStopWords.has(v.toLowerCase()) && /[\x21-\x7e]/.test(v),
  machineMade: (v) => /\d/.test(v) && /[A-Za-z]/.test(v),
  cardShape: (v, before) => {
    const digits = v.replace(/[ -]/g, '');
    if (digits.length < 13 || digits.length > 19) return false;
    return passesLuhn(digits) || !notPiiCue.test(before.slice(-24));
  },
  residentIdShape: (v, before) => {
    const id = v.replace(/[ -]/g, '');
    if (id.length !== 18) return false;
    if (isValidResidentId(id)) return true;
    // A mistyped id keeps its shape: a birth date where the id has one.
    return hasBirthDate(id) && !notPiiCue.test(before.slice(-24));
  },
};

const DETECTORS: readonly Detector[] = PII_DETECTORS.map((d) => ({
  type: d.type,
  pattern: new RegExp(d.pattern, `g${d.flags ?? ''}`),
  ...(d.check ? { accept: CHECKS[d.check] } : {}),
}));

/**
 * Full-width letters, digits and address symbols as ASCII, one UTF-16 unit for one, so a match in
 * the folded text is at the same place in the original. Clause punctuation is kept (see the config).
 */
export function foldWidth(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/g, (c) => {
    if (c === '\u3000') return ' ';
    if ('，：；！？（）'.includes(c)) return c;
    return String.fromCharCode(c.charCodeAt(0) - 0xfee0);
  });
}

export function maskPii(text: string): MaskResult {
  const found = new Set<PiiType>();
  let masked = text;
  for (const detector of DETECTORS) {
    // Detect on the folded text, replace in the text as written: both have the same offsets.
    const folded = foldWidth(masked);
    let out = '';
    let last = 0;
    for (const match of folded.matchAll(detector.pattern)) {
      const start = match.index;
      const value = match.groups?.value ?? match[0];
      const valueStart = start + match[0].length - value.length;
      if (detector.accept && !detector.accept(value, folded.slice(0, valueStart))) continue;
      found.add(detector.type);
      out += masked.slice(last, valueStart) + `[${detector.type}]`;
      last = start + match[0].length;
    }
    masked = out + masked.slice(last);
  }
  return { text: masked, masked: [...found].sort() };
}

/** Luhn (mod 10), as printed on every payment card. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK_CHARS = '10X98765432';

/** GB 11643-1999: 18 characters, a plausible birth date, and the ISO 7064 mod 11-2 check character. */
export function isValidResidentId(id: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(id) || !hasBirthDate(id)) return false;
  const sum = ID_WEIGHTS.reduce((acc, w, i) => acc + w * Number(id[i]), 0);
  return ID_CHECK_CHARS[sum % 11] === id[17].toUpperCase();
}

/** Characters 7-14 of a resident id are the holder's birth date (YYYYMMDD, 1900-2099). */
function hasBirthDate(id: string): boolean {
  const year = Number(id.slice(6, 10));
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  return year >= 1900 && year <= 2099 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
