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

  it('given a 16-digit number that fails Luhn, then it is not masked as a card', () => {
    expect(passesLuhn('1234567812345678')).toBe(false);
    expect(maskPii('订单号 1234567812345678').text).toBe('订单号 1234567812345678');
  });

  it('given a Chinese resident id with a valid checksum, then it is masked; with a wrong one, it is not', () => {
    const id = residentId('11010519491231002');
    expect(isValidResidentId(id)).toBe(true);
    expect(maskPii(`身份证号 ${id}`)).toEqual({ text: '身份证号 [ID_NUMBER]', masked: ['ID_NUMBER'] });
    const wrong = id.slice(0, 17) + (id[17] === '1' ? '2' : '1');
    expect(maskPii(`身份证号 ${wrong}`).masked).not.toContain('ID_NUMBER');
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
