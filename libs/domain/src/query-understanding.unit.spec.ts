import { defaultQueryLanguagePacks } from './query-understanding.config';
import { namedSpeakers, timeWindowOf, understandQuery } from './query-understanding';
import { dateWords, searchKeysOf } from './search-keys';
import { tokenize } from './tokenizer';

const ASKED = new Date('2026-11-25T10:00:00.000Z'); // a Wednesday
const rules = [...defaultQueryLanguagePacks.zh.time, ...defaultQueryLanguagePacks.en.time];
const window = (query: string) => timeWindowOf(query, ASKED, rules);
const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`).toISOString();

describe('understandQuery: speakers', () => {
  it('given a question naming one of the speakers, then that speaker', () => {
    expect(namedSpeakers(tokenize('What superhero is Joanna a fan of?'), ['Joanna', 'Nate'])).toEqual(['Joanna']);
    expect(namedSpeakers(tokenize("What are Melanie's pets' names?"), ['Caroline', 'Melanie'])).toEqual(['Melanie']);
  });

  it('given a question naming every speaker, or none, then no steering', () => {
    expect(namedSpeakers(tokenize('What did Caroline and Melanie both paint?'), ['Caroline', 'Melanie'])).toEqual([]);
    expect(namedSpeakers(tokenize('What did we talk about?'), ['Caroline', 'Melanie'])).toEqual([]);
  });
});

describe('understandQuery: the assistant\'s own words', () => {
  it.each(['你推荐的那家清淡的川菜馆叫什么？', '上次你给我推荐的蛋白粉是哪款？', 'Which library did you suggest for the SFTP part?', 'What did you recommend for the cloud migration?'])(
    'given "%s", then it asks what the assistant said',
    (query) => {
      expect(understandQuery(query, ASKED).assistant).toBe(true);
    },
  );

  it.each(['我推荐同事用什么工具？', 'What do I recommend to new hires?'])('given "%s", then it does not', (query) => {
    expect(understandQuery(query, ASKED).assistant).toBeUndefined();
  });
});

describe('understandQuery: time windows (asked on Wednesday 25 November 2026)', () => {
  it.each([
    ['昨天我说了什么？', '2026-11-24', '2026-11-25'],
    ['What did I buy last week?', '2026-11-16', '2026-11-23'],
    ['上周三我们定了什么？', '2026-11-16', '2026-11-23'],
    ['上个月的预算是多少？', '2026-10-01', '2026-11-01'],
    ['What did I plan last month?', '2026-10-01', '2026-11-01'],
    ['去年五月我去了哪里？', '2025-05-01', '2025-06-01'],
    ['What did she do in May 2023?', '2023-05-01', '2023-06-01'],
    ['What happened in May?', '2026-05-01', '2026-06-01'],
    ['What did we decide in December?', '2025-12-01', '2026-01-01'],
    ['2023年5月发生了什么？', '2023-05-01', '2023-06-01'],
    ['三天前我说的那家店', '2026-11-22', '2026-11-23'],
    ['What did I say 2 weeks ago?', '2026-11-09', '2026-11-16'],
    ['去年我定的目标', '2025-01-01', '2026-01-01'],
  ])('given "%s", then [%s, %s)', (query, from, to) => {
    expect(window(query)).toEqual({ from: day(from), to: day(to) });
  });

  it.each(['When did Caroline go to the LGBTQ support group?', '我老婆生日是几月几号？', 'May I ask what my budget is?'])(
    'given "%s" (no time named), then no window',
    (query) => {
      expect(window(query)).toBeNull();
    },
  );
});

describe('searchKeysOf', () => {
  it('given an episode with a speaker and facts, then its speaker, its day in both languages and its keys', () => {
    const keys = searchKeysOf({ speaker: 'Caroline', keys: ['editor VS Code'], validFrom: '2023-05-08T13:56:00.000Z' });
    expect(keys).toEqual(['Caroline', 'Monday 8 May 2023', '2023年5月8日 星期一', 'editor VS Code']);
  });

  it('given an unreadable date, then no date words', () => {
    expect(dateWords('not a date')).toEqual([]);
  });
});
