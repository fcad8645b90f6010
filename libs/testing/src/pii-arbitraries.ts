import fc from 'fast-check';

/**
 * fast-check generators of PII as people write it: phones, cards, resident ids (valid and mistyped),
 * e-mails, passwords, WeChat and QQ ids, grouped with spaces or hyphens, in full-width forms, inside
 * Chinese and English sentences with punctuation. Each sample carries the raw values that must not
 * survive masking (digits compared without separators, see `leakedPii`).
 */
export interface PiiSample {
  readonly text: string;
  /** The identifiers in `text`, as written (before width folding or grouping). */
  readonly secrets: readonly string[];
}

const digit = fc.constantFrom(...'0123456789');
const digits = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(''));

/** Luhn check digit for `body`. */
function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
function idCheck(first17: string): string {
  return '10X98765432'[[...first17].reduce((acc, d, i) => acc + ID_WEIGHTS[i] * Number(d), 0) % 11];
}

/** A number as written: whole, or in groups joined by a space or hyphen. */
function grouped(value: string, sizes: readonly number[]): fc.Arbitrary<string> {
  return fc.constantFrom('', ' ', '-').map((sep) => {
    if (!sep) return value;
    const parts: string[] = [];
    let at = 0;
    for (const size of sizes) {
      if (at >= value.length) break;
      parts.push(value.slice(at, at + size));
      at += size;
    }
    if (at < value.length) parts.push(value.slice(at));
    return parts.join(sep);
  });
}

/** Full-width digits and letters (ＡＢ１２), as Chinese input methods type them. */
export function toFullWidth(text: string): string {
  return text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replace(/ /g, '\u3000');
}

const maybeFullWidth = (value: fc.Arbitrary<string>) => fc.tuple(value, fc.boolean()).map(([v, wide]) => (wide ? toFullWidth(v) : v));

const phone = fc
  .tuple(fc.constantFrom('13', '15', '17', '18', '19'), digits(9), fc.constantFrom('', '+86 ', '+86-', '0086 '))
  .chain(([head, rest, prefix]) => grouped(head + rest, [3, 4, 4]).map((n) => prefix + n));

const card = fc
  .tuple(fc.constantFrom('4', '5', '62', '37'), fc.integer({ min: 13, max: 19 }), fc.boolean())
  .chain(([head, length, valid]) =>
    digits(length - head.length - 1).map((body) => {
      const check = luhnDigit(head + body);
      // Mistyped: the check digit one off, so the number fails Luhn.
      return head + body + (valid ? check : String((Number(check) + 1) % 10));
    }),
  )
  .chain((n) => grouped(n, [4, 4, 4, 4, 3]));

const residentId = fc
  .tuple(
    digits(6),
    fc.integer({ min: 1930, max: 2020 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    digits(3),
    fc.boolean(),
  )
  .map(([region, y, m, d, seq, valid]) => {
    const first17 = `${region}${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}${seq}`;
    const check = idCheck(first17);
    return first17 + (valid ? check : check === '1' ? '2' : '1');
  })
  .chain((id) => grouped(id, [6, 8, 4]));

const word = fc.stringMatching(/^[a-z][a-z0-9]{2,7}$/);
const email = fc.tuple(word, word, fc.constantFrom('com', 'cn', 'io', 'org')).map(([user, host, tld]) => `${user}@${host}.${tld}`);
const password = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{3,9}$/),
    fc.stringMatching(/^[!@#$%^&*_+=~-]{0,4}$/),
    fc.stringMatching(/^[A-Za-z0-9]{0,3}$/),
  )
  .map(([a, symbols, b]) => a + symbols + b);
const wechatId = fc.stringMatching(/^[a-z][a-z0-9_-]{5,15}$/);
const qq = fc.tuple(fc.constantFrom(...'123456789'), digits(8)).map(([a, b]) => a + b);

interface Shape {
  readonly value: fc.Arbitrary<string>;
  readonly zh: readonly string[];
  readonly en: readonly string[];
}

/** Cue words before each shape; `{}` is where the value goes. Numbers also appear without a cue. */
const SHAPES: readonly Shape[] = [
  { value: maybeFullWidth(phone), zh: ['我的手机号是{}', '电话：{}', '打{}找我', '{}'], en: ['call me on {}', 'my number is {}', '{}'] },
  { value: maybeFullWidth(card), zh: ['卡号 {}', '银行卡：{}', '{}'], en: ['my card is {}', 'card number: {}', '{}'] },
  { value: maybeFullWidth(residentId), zh: ['身份证号 {}', '身份证：{}', '{}'], en: ['my ID is {}', '{}'] },
  { value: maybeFullWidth(email), zh: ['邮箱 {}', '发到{}就行'], en: ['mail me at {}', 'email: {}'] },
  { value: password, zh: ['密码是 {}', '密码：{}', '登录密码是{}'], en: ['my password is {}', 'password: {}', 'pwd={}'] },
  {
    value: wechatId,
    zh: ['加我微信 {}', 'V信 {}', '微信号：{}', '加v {}'],
    en: ['wechat: {}', 'my WeChat ID is {}', 'vx {}', 'add me on weixin {}'],
  },
  { value: maybeFullWidth(qq), zh: ['QQ {}', '扣扣号 {}', 'qq号：{}'], en: ['QQ number {}', 'my qq is {}'] },
];

const ZH_BEFORE = ['', '好的，', '对了，', '记一下：', '老周说', '我叫老周，'];
const ZH_AFTER = ['', '。', '，谢谢', '！', '，别告诉别人。', ' 周末联系'];
const EN_BEFORE = ['', 'Sure, ', 'By the way, ', 'Note: ', 'Hi, I am Ada. '];
const EN_AFTER = ['', '.', ', thanks', '!', ' if anything comes up.', ' (work)'];

const pii = (lang: 'zh' | 'en') =>
  fc
    .constantFrom(...SHAPES)
    .chain((shape) => fc.tuple(fc.constantFrom(...shape[lang]), shape.value))
    .map(([template, value]) => ({ text: template.replace('{}', value), secret: value }));

/** One sentence holding one to three identifiers, in Chinese or English. */
export const piiSentence: fc.Arbitrary<PiiSample> = fc.constantFrom('zh' as const, 'en' as const).chain((lang) =>
  fc
    .tuple(
      fc.constantFrom(...(lang === 'zh' ? ZH_BEFORE : EN_BEFORE)),
      fc.array(pii(lang), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...(lang === 'zh' ? ZH_AFTER : EN_AFTER)),
    )
    .map(([before, items, after]) => ({
      text: before + items.map((i) => i.text).join(lang === 'zh' ? '，' : ', ') + after,
      secrets: items.map((i) => i.secret),
    })),
);

/**
 * The identifiers of `secrets` still readable in `text`: a number is found again with its grouping
 * or width changed (digits compared alone), anything else as written or as ASCII.
 */
export function leakedPii(text: string, secrets: readonly string[]): string[] {
  const ascii = fromFullWidth(text);
  const digitsOnly = ascii.replace(/\D/g, '');
  return secrets.filter((secret) => {
    const plain = fromFullWidth(secret);
    if (/^[\d +\-X]+$/i.test(plain)) {
      const core = plain.replace(/^(\+86|0086)/, '').replace(/[^\dX]/gi, '');
      return digitsOnly.includes(core.replace(/X$/i, '')) || ascii.replace(/[ -]/g, '').includes(core);
    }
    return ascii.includes(plain);
  });
}

function fromFullWidth(text: string): string {
  return text.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\u3000/g, ' ');
}
