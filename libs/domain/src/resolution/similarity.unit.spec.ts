import { normaliseValue, similarity } from './resolution.matching';
import { tokenize } from '../text/tokenizer';

/** The cached, interned similarity gives exactly the Jaccard over tokenize() terms it replaced. */
function reference(a: string, b: string): number {
  if (normaliseValue(a) === normaliseValue(b)) return normaliseValue(a) === '' ? 0 : 1;
  const left = new Set(tokenize(a));
  const right = new Set(tokenize(b));
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const term of left) if (right.has(term)) shared++;
  return shared / (left.size + right.size - shared);
}

const TEXTS = [
  '我喜欢喝冰美式咖啡',
  '我喜欢喝热美式咖啡',
  '我们的数据库用 PostgreSQL',
  '数据库用 PostgreSQL',
  'I prefer VS Code for TypeScript work',
  'I prefer vs code for typescript work!',
  'I prefer Neovim for Rust work',
  '预算控制在三万以内',
  '预算提到五万了',
  '',
  '。。。',
  'ok',
  'OK',
  '每周二晚上打羽毛球',
  'Every Tuesday evening I play badminton',
];

describe('similarity', () => {
  it('equals the Jaccard over tokenize() terms for every pair, cached or not', () => {
    for (let round = 0; round < 2; round++) {
      for (const a of TEXTS) for (const b of TEXTS) expect([a, b, similarity(a, b)]).toEqual([a, b, reference(a, b)]);
    }
  });

  it('is 1 for texts equal but for case, spacing and punctuation, and 0 for empty ones', () => {
    expect(similarity('I prefer VS Code for TypeScript work', 'I prefer vs code for typescript work!')).toBe(1);
    expect(similarity('', '')).toBe(0);
    expect(similarity('我喜欢喝冰美式咖啡', '我喜欢喝热美式咖啡')).toBeGreaterThan(0);
  });
});
