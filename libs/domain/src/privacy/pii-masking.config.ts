/**
 * What PII masking looks for. Configuration, not code: a new cue word or id shape is a new string here.
 *
 * Patterns are regex sources matched against the text with full-width letters, digits and the
 * symbols of addresses (`＠．＋－`) folded to ASCII, so `１３８…` is found like `138…`; the
 * punctuation Chinese uses between clauses (`，：；！？`) is not folded and still ends a value.
 * A `value` group, when present, is what is replaced, so the cue stays ("密码是[SECRET]").
 */

export const PII_TYPES = ['CARD', 'EMAIL', 'ID_NUMBER', 'PHONE', 'QQ', 'SECRET', 'WECHAT'] as const;
export type PiiType = (typeof PII_TYPES)[number];

/**
 * Checks a detector may ask of its value. `shape` checks only decide whether a match is masked at
 * all; a checksum never decides alone: a mistyped real number is still PII.
 */
export type PiiCheck = 'notCueWord' | 'machineMade' | 'cardShape' | 'residentIdShape';

export interface PiiDetectorConfig {
  readonly type: PiiType;
  readonly pattern: string;
  /** Regex flags besides `g` (always set). */
  readonly flags?: string;
  readonly check?: PiiCheck;
}

/** Characters that end a secret after a strong cue: whitespace, quotes, brackets and Chinese clause punctuation. */
const SECRET_END = String.raw`\s\[\]"'“”‘’，。；、！？（）《》`;
/** Digits, each optionally followed by one space or hyphen (how people group long numbers). */
const SPACED = String.raw`[ -]?`;

/**
 * Order matters: specific before general. Id numbers and phones go before cards, because card
 * shapes (13-19 digits) include theirs.
 */
export const PII_DETECTORS: readonly PiiDetectorConfig[] = [
  {
    type: 'EMAIL',
    // Starts only where a run of address characters starts: without the look-behind every position
    // of a long run of letters scanned the rest of it for an "@" (16,000 letters: 0.6 s a turn).
    pattern: String.raw`(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`,
  },
  {
    // Strong cues: whatever follows, up to whitespace or clause punctuation, is the secret — symbols
    // included ("Abc123!@#"). A sentence's final full stop or comma is left outside.
    type: 'SECRET',
    pattern: String.raw`(?:(?<![A-Za-z])(?:password|passwd|passcode|pass\s?word|pwd|pin\s?code)(?![A-Za-z])|支付密码|登录密码|密码|口令|验证码)\s*(?:is|was|是|为|:|：|=)?\s*(?<value>[^${SECRET_END}]{3,}[^${SECRET_END}.,;])`,
    flags: 'iu',
    check: 'notCueWord',
  },
  {
    // Weak cues ("token", "key" appear in normal speech): the value must look machine-made.
    type: 'SECRET',
    pattern: String.raw`(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?|token|私钥|密钥)\s*(?:is|是|为|:|：|=)?\s*(?<value>[A-Za-z0-9_\-./+=]{8,})`,
    flags: 'iu',
    check: 'machineMade',
  },
  {
    // Well-known key shapes, with or without a cue.
    type: 'SECRET',
    pattern: String.raw`\b(?:sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}|Bearer\s+[A-Za-z0-9._~+/-]{16,}=*)`,
  },
  {
    // Resident ids (GB 11643): 18 characters, the last a digit or X, written whole or grouped.
    type: 'ID_NUMBER',
    pattern: String.raw`(?<![\d\w])(?:\d${SPACED}){17}[\dXx](?![\d\w])`,
    check: 'residentIdShape',
  },
  {
    // International numbers need the leading "+" to be told apart from other numbers.
    type: 'PHONE',
    pattern: String.raw`(?<![\d\w])\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{1,4}(?:[ -]?\d{2,4}){2,4}(?![\d\w])`,
  },
  {
    // Chinese mobile numbers, optional +86 / 0086, any grouping.
    type: 'PHONE',
    pattern: String.raw`(?<![\d\w+])(?:(?:\+|00)?86${SPACED})?1[3-9]\d(?:${SPACED}\d){8}(?![\d\w])`,
  },
  {
    // Payment cards: 13-19 digits, grouped or not.
    type: 'CARD',
    pattern: String.raw`(?<![\d\w+])(?:\d${SPACED}){12,18}\d(?![\d\w])`,
    check: 'cardShape',
  },
  {
    // North-American style "(555) 123-4567" / "555-123-4567".
    type: 'PHONE',
    pattern: String.raw`(?<![\d\w])(?:\(\d{3}\)\s?|\d{3}-)\d{3}-\d{4}(?![\d\w])`,
  },
  {
    // WeChat ids: a letter, then 5-19 letters, digits, _ or -. Latin cues stand alone ("vx", not "vxworks").
    // "V" alone is the chat-room spelling of WeChat: after "add" (加V, 加我V, 加您V, "add me on V") or as a
    // label before a colon ("V：zqf161x").
    type: 'WECHAT',
    pattern: String.raw`(?:微信号?|威信|薇信|[vV]信|加(?:我|您|你|一下)?\s*[vV微]|(?<![A-Za-z])(?:wechat|weixin|vx|wx|(?:add|ping|message|dm)\s+(?:me\s+)?on\s+v|v(?=\s*[:：]))(?![A-Za-z]))\s*(?:号|id)?\s*(?:is|是|为|:|：)?\s*(?<value>[A-Za-z][-_A-Za-z0-9]{5,19})(?![-_A-Za-z0-9])`,
    flags: 'iu',
  },
  {
    type: 'QQ',
    pattern: String.raw`(?:(?<![A-Za-z])qq|扣扣)\s*(?:号码?|number|no\.?)?\s*(?:is|是|为|:|：)?\s*(?<value>[1-9](?:${SPACED}\d){4,11})(?!\d)`,
    flags: 'iu',
  },
];

/**
 * Words that say a long number is not a card or an id ("订单号 1234567812345678", "tracking number
 * …"): right before a number that also fails its checksum, they keep it as it is.
 */
export const NOT_PII_NUMBER_CUES: readonly string[] = [
  '订单号',
  '订单',
  '单号',
  '运单',
  '快递',
  '物流',
  '工单',
  '流水号',
  '发票号',
  'order',
  'tracking',
  'invoice',
  'ticket',
  'shipment',
  'reference',
  'ref',
];

/** Words a strong cue may be followed by that are not a secret ("the password is for…"). */
export const SECRET_STOP_WORDS: readonly string[] = ['is', 'was', 'for', 'of', 'and', 'the', 'to', 'reset', 'manager', '是', '的'];
