import 'reflect-metadata'; // @engram/contracts' validation decorators need it; see report
import { deterministicId } from '@engram/contracts';
import { defaultScreeningConfig as config } from './screening.config';
import { isChitChat, ScreeningDecider, screenTurn } from './screening.decider';
import { deciderSpec } from '../testing/decider-spec';
import { turnRecorded } from '../testing/fixtures';

describe('screenTurn', () => {
  it.each(['嗯嗯', '好的', 'ok', 'thanks!', '好的好的，谢谢！', 'ok thanks', '👍'])(
    'given chit-chat "%s", then it is rejected as chit-chat',
    (text) => {
      const result = screenTurn({ role: 'user', text }, config);
      expect(result).toMatchObject({ verdict: 'rejected', reasons: ['chit-chat'] });
    },
  );

  it('given a word that merely starts like chit-chat, then it is not chit-chat', () => {
    expect(isChitChat('okinawa', config)).toBe(false);
  });

  it.each([
    ['我喜欢用 VS Code', 'preference'],
    ['我叫老周', 'profile'],
    ['预算控制在三万以内', 'budget'],
    ['每周三下午两点例会', 'schedule'],
    ['the deadline is Friday', 'task'],
    ['我们决定用 Kafka 做消息队列', 'decision'],
    ["actually it's 50k", 'correction'],
    ['记住我女儿的生日是5月3日', 'remember'],
    ['I never drink coffee after 3pm', 'preference'],
    ['我们团队人少', 'fact'],
    ["we're a small team", 'fact'],
  ])('given "%s", then it is accepted with signal %s', (text, signal) => {
    const result = screenTurn({ role: 'user', text }, config);
    expect(result.verdict).toBe('accepted');
    expect(result.signals).toContain(signal);
    expect(result.reasons).toContain(`signal:${signal}`);
  });

  it.each(['帮我看看这家店的营业时间', "what's the weather today"])('given a one-off request "%s", then it is tagged ephemeral', (text) => {
    expect(screenTurn({ role: 'user', text }, config).ephemeral).toBe(true);
  });

  it('given a durable statement, then it is not ephemeral', () => {
    expect(screenTurn({ role: 'user', text: '我喜欢用 VS Code' }, config).ephemeral).toBe(false);
  });

  it('given a statement that names the weather or a nearby place, then it is not ephemeral; a question about it is', () => {
    for (const text of [
      'Just yesterday I joined a nearby church.',
      'The weather was awesome on our camping trip!',
      '上周我们在公司附近找了一家川菜馆，很好吃。',
    ]) {
      expect(screenTurn({ role: 'user', text }, config).ephemeral).toBe(false);
    }
    for (const text of [
      '今天成都下雨吗',
      '附近有没有丝芙兰？',
      "what's the traffic like on I-5 right now",
      '跑了，配速 6 分 10 秒。今天天气适合户外跑吗？',
      '查一下成都十月初的气温',
    ]) {
      expect(screenTurn({ role: 'user', text }, config).ephemeral).toBe(true);
    }
    // The assistant's reply to such a request is as one-off as the request.
    expect(
      screenTurn({ role: 'assistant', text: "I can't check live weather, sorry. A weather app will have it." }, config).ephemeral,
    ).toBe(true);
  });

  it('given an assistant turn, then it is ephemeral when the turn it answers is a one-off request', () => {
    const sephora = { role: 'assistant' as const, text: '我看不到你的位置，可以在地图 App 里搜一下“丝芙兰”。' };
    expect(screenTurn({ ...sephora, previousText: '附近有没有丝芙兰？' }, config).ephemeral).toBe(true);
    // A recommendation that names a place "nearby" answers a question about where to stay: it lasts.
    const hotel = '没问题。住宿的话，春熙路附近的博舍环境最好，更实惠的是太古里旁边的全季酒店。';
    expect(
      screenTurn({ role: 'assistant', text: hotel, previousText: '国庆想带爸妈去成都玩五天，预算一万左右，住哪里好？' }, config).ephemeral,
    ).toBe(false);
    // Without the turn it answers, a mention still marks it (as before).
    expect(screenTurn({ role: 'assistant', text: hotel }, config).ephemeral).toBe(true);
  });

  it('given an assistant recommendation, then it is accepted with signal recommendation', () => {
    for (const text of ['我推荐你去试试楼下的兰州拉面', "I recommend 'Designing Data-Intensive Applications'"]) {
      expect(screenTurn({ role: 'assistant', text }, config)).toMatchObject({
        verdict: 'accepted',
        signals: ['recommendation'],
      });
    }
  });

  it('given an assistant echoing the user, then it is kept as an episode only: no signal, nothing to extract', () => {
    expect(screenTurn({ role: 'assistant', text: '好的，你喜欢用 VS Code，我记下了' }, config)).toMatchObject({
      verdict: 'accepted',
      reasons: ['episode'],
      signals: [],
    });
  });

  it('given a system or tool turn without a signal, then it is rejected by role', () => {
    expect(screenTurn({ role: 'tool', text: '{"status": 200, "items": 3}' }, config)).toMatchObject({
      verdict: 'rejected',
      reasons: ['role:tool'],
    });
  });

  it('given a turn that says something without a signal, short or long, then it is kept as an episode only', () => {
    for (const text of ['地铁挤', '今天地铁好挤啊真是的', 'Wow! Did you see that band?']) {
      expect(screenTurn({ role: 'user', text }, config)).toMatchObject({ verdict: 'accepted', reasons: ['episode'], signals: [] });
    }
  });

  it('given a turn with no letters or digits at all, then it is rejected as content-free', () => {
    expect(screenTurn({ role: 'user', text: '？？！…' }, config)).toMatchObject({ verdict: 'rejected', reasons: ['chit-chat'] });
  });

  it('given PII, then the returned text is masked first and the types are listed', () => {
    const result = screenTurn({ role: 'user', text: '记住我的手机号是13812345678' }, config);
    expect(result).toMatchObject({ verdict: 'accepted', text: '记住我的手机号是[PHONE]', masked: ['PHONE'] });
  });
});

describe('ScreeningDecider', () => {
  it('given a recorded turn, when decided, then a TurnScreened with a deterministic id and causation follows', () => {
    const turn = turnRecorded('我的邮箱是 a.b@example.com，我喜欢用 VS Code');
    const [screened] = ScreeningDecider.decide(turn, ScreeningDecider.initialState(), { config, recordedAt: '2026-11-30T09:00:00.000Z' });
    expect(screened).toMatchObject({
      eventId: deterministicId('screened', turn.eventId, config.version),
      type: 'TurnScreened',
      schemaVersion: 1,
      tenantId: turn.tenantId,
      userId: turn.userId,
      occurredAt: turn.occurredAt,
      recordedAt: '2026-11-30T09:00:00.000Z',
      causationId: turn.eventId,
      correlationId: turn.correlationId,
      payload: {
        turnId: turn.payload.turnId,
        text: '我的邮箱是 [EMAIL]，我喜欢用 VS Code',
        verdict: 'accepted',
        masked: ['EMAIL'],
        screenerVersion: config.version,
      },
    });
  });

  it('given the same turn twice, then both decisions are identical (replay-safe)', () => {
    const turn = turnRecorded('预算控制在三万以内');
    const screen = () => ScreeningDecider.decide(turn, ScreeningDecider.initialState(), { config, recordedAt: 'x' });
    expect(screen()).toEqual(screen());
  });
});

describe('screenTurn: specific details without a cue word (screening-2)', () => {
  it.each(['考试在 10 月 24 号', '那就选 129 的 500M 吧', 'Omar starts December 1', 'Then Hotel Silla in Oltrarno'])(
    'given "%s", then it is accepted with signal detail',
    (text) => {
      expect(screenTurn({ role: 'user', text }, config)).toMatchObject({ verdict: 'accepted', signals: ['detail'] });
    },
  );

  it.each([
    '第一志愿爱丁堡，然后是 UCL 和华威',
    '她 10 月 18 号生日',
    '搬家定在 11 月 8 号周日',
    '身高 178',
    '我妈晕车，山路能少走就少走',
    'I shoot with a Sony A7 IV',
    "I don't eat meat or eggs",
  ])('given "%s", then it is accepted', (text) => {
    expect(screenTurn({ role: 'user', text }, config).verdict).toBe('accepted');
  });

  it('given an assistant turn naming a specific product, then it has the detail signal; an echo of the user has none', () => {
    expect(screenTurn({ role: 'assistant', text: 'The BenQ SW242Q covers most of Adobe RGB.' }, config).signals).toEqual(['detail']);
    expect(screenTurn({ role: 'assistant', text: '已改为 9 月 6 日周六下午 2 点到 5 点上门。' }, config).signals).toEqual(['detail']);
    expect(screenTurn({ role: 'assistant', text: 'Got it, you prefer VS Code.' }, config)).toMatchObject({
      verdict: 'accepted',
      signals: [],
    });
  });

  it('given 翻译 inside a statement ("高频的再逐个翻译"), then not ephemeral; a translation request is', () => {
    expect(screenTurn({ role: 'assistant', text: '低频的改成应用层逻辑，高频的再逐个翻译。' }, config).ephemeral).toBe(false);
    expect(screenTurn({ role: 'user', text: '帮我翻译一下这句话' }, config).ephemeral).toBe(true);
    expect(screenTurn({ role: 'user', text: 'translate this into French' }, config).ephemeral).toBe(true);
  });
});

describe('ScreeningDecider (deciderSpec): every recorded turn gets one verdict, decided alone', () => {
  const RECORDED = '2026-11-30T09:00:00.000Z';
  const screening = deciderSpec(ScreeningDecider, { config, recordedAt: RECORDED });

  it('given nothing, when a turn with a cue is recorded, then one accepted TurnScreened with its signals and masked text', () => {
    const turn = turnRecorded('我的邮箱是 a.b@example.com，我喜欢用 VS Code');
    screening
      .given([])
      .when(turn)
      .then(([screened, ...more]) => {
        expect(more).toEqual([]);
        expect(screened.eventId).toBe(deterministicId('screened', turn.eventId, config.version));
        expect(screened.payload).toMatchObject({
          ...screenTurn(turn.payload, config),
          verdict: 'accepted',
          text: '我的邮箱是 [EMAIL]，我喜欢用 VS Code',
          screenerVersion: config.version,
        });
      });
  });

  it('given nothing, when a content-free turn is recorded, then a rejected TurnScreened: every verdict is an event', () => {
    screening
      .given([])
      .when(turnRecorded('好的好的，谢谢！'))
      .then(([screened]) => expect(screened.payload).toMatchObject({ verdict: 'rejected', reasons: ['chit-chat'], signals: [] }));
  });

  it('given turns screened before, when a turn is recorded, then the same verdict: screening keeps no state', () => {
    const before = ScreeningDecider.decide(turnRecorded('预算控制在三万以内'), ScreeningDecider.initialState(), {
      config,
      recordedAt: RECORDED,
    });
    const turn = turnRecorded('我喜欢用 VS Code');
    expect(screening.given(before).when(turn).result()).toEqual(screening.given([]).when(turn).result());
  });
});
