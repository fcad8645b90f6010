import { defaultQueryLanguagePacks } from './query-understanding.config';
import { answerAskedFor, namedSpeakers, timeWindowOf, understandQuery } from './query-understanding';
import { holdsAnswer } from './ranking';
import { dateWords, searchKeysOf } from '../recall/search-keys';
import { tokenize } from '../text/tokenizer';

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

describe("understandQuery: the assistant's own words", () => {
  it.each([
    '你推荐的那家清淡的川菜馆叫什么？',
    '上次你给我推荐的蛋白粉是哪款？',
    'Which library did you suggest for the SFTP part?',
    'What did you recommend for the cloud migration?',
  ])('given "%s", then it asks what the assistant said', (query) => {
    expect(understandQuery(query, ASKED).assistant).toBe(true);
  });

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

describe('understandQuery: the answer asked for', () => {
  const packs = Object.values(defaultQueryLanguagePacks);
  const kind = (query: string) => answerAskedFor(query, packs)?.kind ?? null;

  it.each([
    ['What time does my outbound flight to Mumbai depart?', 'time'],
    ['去成都的航班几点起飞？', 'time'],
    ['When am I flying back from Mumbai?', 'date'],
    ['When did Caroline go to the LGBTQ support group?', 'date'],
    ['Which day is the dentist appointment?', 'date'],
    ['我老婆生日是几月几号？', 'date'],
    ['改版什么时候上线？', 'date'],
    ['我现在每周哪几天跑步？', 'date'],
    ['瑜伽课是周几？', 'date'],
    ['Which days do the kids have swim class?', 'date'],
    ['What operating system do I prefer?', null],
    ['我现在每周跑几次步？', null],
  ])('given "%s", then %s', (query, expected) => {
    expect(kind(query)).toBe(expected);
  });

  it.each([
    ["I've found BA 199 departing 18 December at 20:55", 'time', true],
    ['机票订好了，10 月 2 号早上 7:40 的国航 CA4193', 'time', true],
    ['好的，七点的航班建议提前两小时到', 'time', true],
    ['快一点到机场', 'time', false],
    ['Hi, I need to book a flight from London Heathrow to Mumbai', 'time', false],
    ['Change of plan: we need to come back on January 8 instead', 'date', true],
    ['I went to a LGBTQ support group yesterday', 'date', true],
    ['跑步时间改了，改成周一三五晚上去健身房', 'date', true],
    ['改版上线时间推迟了，改成 11 月 25 号', 'date', true],
    ['The flight leaves at 20:55', 'date', true],
    ['You may want to book early', 'date', false],
    ['We met on May 7', 'date', true],
    ['我想带爸妈去成都玩', 'date', false],
  ])('given the memory "%s" and a question asking for a %s, then it holds one: %s', (text, asked, expected) => {
    const query = asked === 'time' ? 'What time is it?' : 'When is it?';
    expect(holdsAnswer(text, answerAskedFor(query, packs)!.shapes)).toBe(expected);
  });

  it('given a question asking for neither, then understandQuery sets no answer', () => {
    expect(understandQuery('What operating system do I prefer?', ASKED).answer).toBeUndefined();
    expect(understandQuery('What time is my flight?', ASKED).answer?.kind).toBe('time');
  });
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
