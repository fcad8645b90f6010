import { countTokens, stem, tokenize } from './tokenizer';

describe('tokenize', () => {
  it('given mixed Chinese and English, then it yields Chinese words, CJK bigrams and English words', () => {
    const terms = tokenize('我叫老周，我们的技术栈是 Spring Boot，数据库用 PostgreSQL');
    expect(terms).toEqual(expect.arrayContaining(['老周', '技术', 'spring', 'boot', '数据', '据库', 'postgresql']));
  });

  it('given Chinese stop words, then they are dropped and no bigram straddles a particle', () => {
    const terms = tokenize('我的预算是什么呢');
    expect(terms).not.toEqual(expect.arrayContaining(['的', '是', '什么', '呢', '我']));
    expect(terms).not.toContain('算是');
    expect(terms).toContain('预算');
  });

  it('given a statement and a later question segmented differently, then their bigrams still meet', () => {
    const statement = new Set(tokenize('数据库用 PostgreSQL'));
    const question = tokenize('你们用的什么数据库');
    expect(question.some((t) => statement.has(t))).toBe(true);
  });

  it('given English, then it lowercases, drops stop words and stems lightly', () => {
    expect(tokenize("I'm working on the users' Projects")).toEqual(['work', 'user', 'project']);
    expect(stem('spring')).toBe('spring');
    expect(stem('cities')).toBe('city');
    expect(stem('running')).toBe('run');
  });

  it('given full-width characters, then NFKC folds them', () => {
    expect(tokenize('ＶＳ Ｃｏｄｅ ２０２６')).toEqual(['vs', 'code', '2026']);
  });

  it('given the same text twice, then the terms are identical (deterministic)', () => {
    const text = '每周三下午两点例会 every Monday at 10am';
    expect(tokenize(text)).toEqual(tokenize(text));
  });
});

describe('countTokens', () => {
  it('given CJK and English, then it counts real BPE tokens', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('我叫老周')).toBeGreaterThan(1);
  });

  it('given special-token text inside user content, then it counts it as plain text instead of throwing', () => {
    expect(countTokens('hi <|endoftext|>')).toBeGreaterThan(2);
  });
});
