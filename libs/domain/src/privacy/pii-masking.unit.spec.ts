import fc from 'fast-check';
import { leakedPii, piiSentence } from '@engram/testing';
import { isValidResidentId, maskPii, passesLuhn } from './pii-masking';

/** A valid resident id built with the real check character, so the test data is not a real person. */
function residentId(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...first17].reduce((acc, d, i) => acc + weights[i] * Number(d), 0);
  return first17 + '10X98765432'[sum % 11];
}

describe('maskPii', () => {
  it('given a phone, an e-mail and a card in Chinese text, then all are masked with typed placeholders', () => {
    const result = maskPii('我的手机号是13812345678，邮箱 a.b@example.com，卡号 4111 1111 1111 1111');
    expect(result.text).toBe('我的手机号是[PHONE]，邮箱 [EMAIL]，卡号 [CARD]');
    expect(result.masked).toEqual(['CARD', 'EMAIL', 'PHONE']);
  });

  it('given a 16-digit number that fails Luhn after an order-number cue, then it is kept; without the cue it is masked by shape', () => {
    expect(passesLuhn('1234567812345678')).toBe(false);
    expect(maskPii('订单号 1234567812345678').text).toBe('订单号 1234567812345678');
    expect(maskPii('tracking number: 1234567812345678').text).toBe('tracking number: 1234567812345678');
    // A mistyped card (one digit off) is still someone's card.
    expect(maskPii('卡号 4111 1111 1111 1112').text).toBe('卡号 [CARD]');
    expect(maskPii('my card is 4111111111111112').text).toBe('my card is [CARD]');
  });

  it('given a card that passes Luhn after an order-number cue, then it is masked all the same', () => {
    expect(maskPii('订单号 4111111111111111').text).toBe('订单号 [CARD]');
  });

  it('given a Chinese resident id with a valid checksum, then it is masked; with a wrong one, it is not', () => {
    const id = residentId('11010519491231002');
    expect(isValidResidentId(id)).toBe(true);
    expect(maskPii(`身份证号 ${id}`)).toEqual({ text: '身份证号 [ID_NUMBER]', masked: ['ID_NUMBER'] });
    const wrong = id.slice(0, 17) + (id[17] === '1' ? '2' : '1');
    expect(isValidResidentId(wrong)).toBe(false);
    // Masked by shape: a mistyped id is still PII; the checksum only raises confidence.
    expect(maskPii(`身份证号 ${wrong}`)).toEqual({ text: '身份证号 [ID_NUMBER]', masked: ['ID_NUMBER'] });
    expect(maskPii(`ID ${wrong.slice(0, 6)} ${wrong.slice(6, 14)} ${wrong.slice(14)}`).text).toBe('ID [ID_NUMBER]');
  });

  it('given phones with +86, separators or an international prefix, then they are masked', () => {
    expect(maskPii('+86 138-1234-5678').text).toBe('[PHONE]');
    expect(maskPii('call me at +1 415 555 0132').text).toBe('call me at [PHONE]');
  });

  it('given secrets after cue words, then only the secret is masked and the cue stays', () => {
    expect(maskPii('密码是 hunter2').text).toBe('密码是 [SECRET]');
    expect(maskPii('api key: sk-abcdefghijklmnopqrstuv').text).toBe('api key: [SECRET]');
    expect(maskPii('the token budget is 500').masked).toEqual([]);
  });

  it('given a password with symbols, then all of it is masked, and the sentence punctuation after it stays', () => {
    expect(maskPii('密码是 Abc123!@#').text).toBe('密码是 [SECRET]');
    expect(maskPii('密码：Abc123!@#，别告诉别人').text).toBe('密码：[SECRET]，别告诉别人');
    expect(maskPii('my password is Abc123!@#.').text).toBe('my password is [SECRET].');
    expect(maskPii('pwd=p@ss:w0rd;x').text).toBe('pwd=[SECRET]');
    expect(maskPii('the password manager I use is great').masked).toEqual([]);
  });

  it('given WeChat ids after any of its spellings, then they are masked; a word that only starts like a cue is not', () => {
    for (const cue of ['wechat:', 'WeChat ID', 'weixin', 'V信', 'v信', 'vx', 'VX:', 'wx', '微信号', '加v', '威信']) {
      expect(maskPii(`${cue} zhou_lao88`).text).toBe(`${cue} [WECHAT]`);
    }
    expect(maskPii('vxworks_kernel is fast').masked).toEqual([]);
  });

  it('given a lone V for WeChat after "add" or before a colon, then the id is masked; V as a word or a version is not', () => {
    expect(maskPii('加您V：zqf161x 发您资料').text).toBe('加您V：[WECHAT] 发您资料');
    expect(maskPii('加我V: abc_12345').text).toBe('加我V: [WECHAT]');
    expect(maskPii('add me on V: zhou_lao88').text).toBe('add me on V: [WECHAT]');
    expect(maskPii('V：wxid_88aa').text).toBe('V：[WECHAT]');
    expect(maskPii('plan V is cheaper than the others').masked).toEqual([]);
    expect(maskPii('version v2 release notes').masked).toEqual([]);
    expect(maskPii('I love the TV show Veronica').masked).toEqual([]);
  });

  it('given full-width digits and letters, then they are masked like their ASCII forms', () => {
    expect(maskPii('手机１３８１２３４５６７８').text).toBe('手机[PHONE]');
    expect(maskPii('邮箱ａ．ｂ＠ｅｘａｍｐｌｅ．ｃｏｍ。').text).toBe('邮箱[EMAIL]。');
    expect(maskPii('电话 １３８　１２３４　５６７８').text).toBe('电话 [PHONE]');
  });

  it('given WeChat and QQ ids after cue words, then they are masked', () => {
    expect(maskPii('加我微信 zhou_lao88 或者 QQ 12345678')).toEqual({
      text: '加我微信 [WECHAT] 或者 QQ [QQ]',
      masked: ['QQ', 'WECHAT'],
    });
  });

  it('given already masked text, then masking again changes nothing (idempotent)', () => {
    const once = maskPii('手机 13812345678, password: hunter2, 微信号 zhou_lao88');
    expect(maskPii(once.text)).toEqual({ text: once.text, masked: [] });
  });
});

describe('maskPii, property-based (fast-check)', () => {
  it('given PII shapes in Chinese and English sentences (grouped, full-width, with punctuation), then none survives masking', () => {
    fc.assert(
      fc.property(piiSentence, ({ text, secrets }) => {
        const { text: masked, masked: types } = maskPii(text);
        expect(leakedPii(masked, secrets)).toEqual([]);
        expect(types.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('given any text, then masking twice is masking once', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          piiSentence.map((s) => s.text),
          fc.string({ unit: 'binary', maxLength: 200 }),
        ),
        (text) => {
          const once = maskPii(text).text;
          expect(maskPii(once).text).toBe(once);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
