/**
 * PII masking: raw identifiers never reach the log, the index or a prompt. Each match becomes a
 * typed placeholder (`[PHONE]`), so text stays readable and the extractor still knows that
 * "我的手机号是[PHONE]" is about a phone number.
 *
 * Checksums (Luhn for cards, GB 11643 for resident ids) keep ordinary long numbers (order ids,
 * tracking numbers) intact. Placeholders never match any detector, so masking is idempotent.
 */

export const PII_TYPES = ['CARD', 'EMAIL', 'ID_NUMBER', 'PHONE', 'QQ', 'SECRET', 'WECHAT'] as const;
export type PiiType = (typeof PII_TYPES)[number];

export interface MaskResult {
  readonly text: string;
  /** Distinct types found, sorted. */
  readonly masked: PiiType[];
}

interface Detector {
  readonly type: PiiType;
  readonly pattern: RegExp;
  /** Replace only the `value` group when present, keeping cue words ("密码是[SECRET]"). */
  readonly accept?: (value: string) => boolean;
}

const SEPARATED_DIGITS = String.raw`(?<![\d\w+])(?:\d[ -]?){12,18}\d(?![\d\w])`;

/**
 * Order matters: specific before general. Id numbers and phones go before cards, because a
 * 13-19 digit run passes Luhn one time in ten by chance.
 */
const DETECTORS: readonly Detector[] = [
  {
    type: 'EMAIL',
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
  },
  {
    // Strong cues: whatever follows is the secret.
    type: 'SECRET',
    pattern:
      /(?:password|passwd|passcode|pwd|密码|口令|支付密码|验证码)\s*(?:is|是|为|:|：|=)?\s*(?<value>[^\s\[\]，。,;；、！!？?"'“”]{4,})/giu,
    accept: (v) => !/^(is|was|for|of|and)$/i.test(v),
  },
  {
    // Weak cues ("token", "key" appear in normal speech): the value must look machine-made.
    type: 'SECRET',
    pattern:
      /(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|token|私钥|密钥)\s*(?:is|是|为|:|：|=)?\s*(?<value>[A-Za-z0-9_\-./+=]{8,})/giu,
    accept: (v) => /\d/.test(v) && /[A-Za-z]/.test(v),
  },
  {
    // Well-known key shapes, with or without a cue.
    type: 'SECRET',
    pattern:
      /\b(?:sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}|Bearer\s+[A-Za-z0-9._~+/-]{16,}=*)/g,
  },
  {
    type: 'ID_NUMBER',
    pattern: /(?<![\d\w])\d{17}[\dXx](?![\d\w])/g,
    accept: isValidResidentId,
  },
  {
    // International numbers need the leading "+" to be told apart from other numbers.
    type: 'PHONE',
    pattern: /(?<![\d\w])\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{1,4}(?:[ -]?\d{2,4}){2,4}(?![\d\w])/g,
  },
  {
    // Chinese mobile numbers, optional +86, optional 3-4-4 separators.
    type: 'PHONE',
    pattern: /(?<![\d\w+])(?:\+?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}(?![\d\w])/g,
  },
  {
    type: 'CARD',
    pattern: new RegExp(SEPARATED_DIGITS, 'g'),
    accept: (v) => {
      const digits = v.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
    },
  },
  {
    // North-American style "(555) 123-4567" / "555-123-4567".
    type: 'PHONE',
    pattern: /(?<![\d\w])(?:\(\d{3}\)\s?|\d{3}-)\d{3}-\d{4}(?![\d\w])/g,
  },
  {
    type: 'WECHAT',
    pattern: /(?:微信号?|加[vV微]|[vV][xX]|wx|WeChat(?:\s?ID)?)\s*(?:号|id|ID)?\s*(?:is|是|为|:|：)?\s*(?<value>[A-Za-z][-_A-Za-z0-9]{5,19})(?![-_A-Za-z0-9])/gu,
  },
  {
    type: 'QQ',
    pattern: /(?:QQ|qq|扣扣)\s*(?:号码?|number|no\.?)?\s*(?:is|是|为|:|：)?\s*(?<value>[1-9]\d{4,11})(?!\d)/gu,
  },
];

export function maskPii(text: string): MaskResult {
  const found = new Set<PiiType>();
  let masked = text;
  for (const detector of DETECTORS) {
    masked = masked.replace(detector.pattern, (...args: unknown[]) => {
      const match = args[0] as string;
      const groups = args[args.length - 1] as Record<string, string | undefined> | undefined;
      const value = typeof groups === 'object' && groups?.value !== undefined ? groups.value : match;
      if (detector.accept && !detector.accept(value)) return match;
      found.add(detector.type);
      const placeholder = `[${detector.type}]`;
      return value === match ? placeholder : match.slice(0, match.length - value.length) + placeholder;
    });
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
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  const sum = ID_WEIGHTS.reduce((acc, w, i) => acc + w * Number(id[i]), 0);
  return ID_CHECK_CHARS[sum % 11] === id[17].toUpperCase();
}
