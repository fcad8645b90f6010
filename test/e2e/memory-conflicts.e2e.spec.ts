import { DaysApart } from '../support/days-apart';
import { EngramHarness, startEngram, TestClock } from '../support/engram-harness';

/**
 * Issue 30, point 7 — contradictions surfaced — and point 2's presentation of history, through the
 * HTTP API of an embedded engram: "我对青霉素过敏" and, days and sessions later, "我可以用青霉素" are not
 * both current. The newer supersedes the allergy, carries a conflict note that recall's debug shows
 * until the user says it again, and the context block shows the allergy only as history, with its dates.
 */
interface Conflict {
  previousVersion: number;
  previousValue: string;
  previousContent: string;
  previousFrom: string;
  since: string;
}
interface Fact {
  id: string;
  attribute: string;
  value: string;
  content: string;
  conflict?: Conflict;
}
interface Recalled {
  facts: Fact[];
  memories: { content: string }[];
  context: string;
}
interface StoredMemory {
  memoryId: string;
  kind: string;
  attribute: string;
  value: string;
  content: string;
  status: string;
  pinned: boolean;
  conflict?: Conflict;
  history: { value: string; content: string }[];
}

const HISTORY = /以前：|previously:/;
/** What a memory holds of a sentence: the clause, without its full stop. */
const clause = (text: string) => text.replace(/[.。]$/u, '');

describe('contradictions surfaced, history shown as history (HTTP, Chinese and English)', () => {
  let engram: EngramHarness;
  let clock: TestClock;
  let talk: DaysApart;

  beforeEach(async () => {
    clock = new TestClock(new Date('2026-12-01T09:00:00Z'));
    engram = await startEngram({ clock });
    talk = new DaysApart(engram, clock);
  });
  afterEach(async () => engram.destroy());

  const say = (userId: string, sessionId: string, texts: string[], days = 0) => talk.say(userId, sessionId, texts, days);
  const recall = (userId: string, query: string, after: string, sessionId: string) =>
    talk.recall<Recalled>({ userId, query, after, sessionId, debug: true });
  const facts = (userId: string) => talk.memories<StoredMemory>(userId, 'all');

  const twins = [
    {
      language: 'Chinese',
      userId: 'qing',
      older: '我对青霉素过敏',
      newer: '我可以用青霉素',
      again: '对，我现在可以用青霉素了',
      smallTalk: ['帮我查一下明天的天气', '好的谢谢'],
      query: '我感冒了，推荐点药',
      attribute: 'allergy:青霉素',
      history: '（以前：我对青霉素过敏，12-01 至 12-04）',
      factLine: '- 我可以用青霉素（与先前的说法矛盾，待确认）',
      marker: '待确认',
    },
    {
      language: 'English',
      userId: 'pete',
      older: "I'm allergic to penicillin.",
      newer: 'I can take penicillin now.',
      again: 'Yes, I can take penicillin now, the test was clear.',
      smallTalk: ["What's the weather tomorrow?", 'ok thanks'],
      query: 'I have a cold, what medicine should I take?',
      attribute: 'allergy:penicillin',
      history: "(previously: I'm allergic to penicillin, 12-01 to 12-04)",
      factLine: '- I can take penicillin now (contradicts an earlier statement; unconfirmed)',
      marker: 'unconfirmed',
    },
  ];

  describe.each(twins)(
    '$language: "$older", days later "$newer"',
    ({ userId, older, newer, again, smallTalk, query, attribute, history, factLine, marker }) => {
      it('the newer is current with a conflict note in debug, and the context shows the older only as history, with its dates', async () => {
        await say(userId, 's1', [older], 2);
        await say(userId, 's2', smallTalk, 1);
        await say(userId, 's3', [newer], 2);
        const after = await say(userId, 's4', smallTalk, 1);

        const stored = await facts(userId);
        expect(stored.map((m) => [m.attribute, m.status, m.value, m.content])).toEqual([[attribute, 'active', 'none', clause(newer)]]);
        expect(stored[0]).toMatchObject({ pinned: true, history: [{ content: clause(older) }] });

        const answer = await recall(userId, query, after, 's5');
        const pinned = answer.facts.find((f) => f.attribute === attribute);
        expect(pinned).toMatchObject({
          content: clause(newer),
          conflict: {
            previousVersion: 1,
            previousContent: clause(older),
            previousFrom: '2026-12-01T09:00:00.000Z',
            since: '2026-12-04T09:00:00.000Z',
          },
        });
        const lines = answer.context.split('\n');
        // Current wherever it is said (the pinned fact, and the turn's episode when search finds it too).
        const current = lines.filter((line) => line.includes(clause(newer)));
        expect(current.length).toBeGreaterThan(0);
        for (const line of current) expect(line).not.toMatch(HISTORY);
        // The pinned fact, marked, with the allergy as history on its own line right under it.
        expect(current).toContain(factLine);
        expect(lines[lines.indexOf(factLine) + 1]).toBe(`  ${history}`);
        // And nowhere else: the allergy is only ever history.
        expect(lines.filter((line) => line.includes(clause(older)))).toEqual([`  ${history}`]);
        // Nothing of the older turn is presented as current: its episode went with the value it stated.
        expect(answer.memories.map((m) => m.content)).not.toContain(clause(older));
      });

      it('said again days later, the newer is confirmed: the note and the marker are gone, the history stays', async () => {
        await say(userId, 's1', [older], 3);
        await say(userId, 's2', [newer], 3);
        await say(userId, 's3', smallTalk, 2);
        const after = await say(userId, 's4', [again], 1);

        const [memory] = (await facts(userId)).filter((m) => m.status === 'active');
        expect(memory).toMatchObject({ attribute, value: 'none', pinned: false });
        expect(memory.conflict).toBeUndefined();
        expect(memory.history.map((h) => h.content)).toEqual([clause(older)]);

        const answer = await recall(userId, query, after, 's5');
        expect(answer.facts.filter((f) => f.attribute === attribute)).toEqual([]);
        expect(answer.context).not.toContain(marker);
      });
    },
  );

  it('the application confirms the newer through POST …/memories/:memoryId/confirm: the note and the marker go; nothing to confirm, changed false', async () => {
    await say('ming', 's1', ['我对青霉素过敏'], 3);
    await say('ming', 's2', ['我可以用青霉素'], 1);
    const [memory] = await facts('ming');
    const confirm = (memoryId: string, status = 200) => engram.http().post(`/v1/users/ming/memories/${memoryId}/confirm`).expect(status);

    const confirmed = (await confirm(memory.memoryId)).body as { memory: StoredMemory; changed: boolean; consistent: boolean };
    expect(confirmed).toMatchObject({
      changed: true,
      consistent: true,
      memory: { memoryId: memory.memoryId, value: 'none', pinned: false },
    });
    expect(confirmed.memory.conflict).toBeUndefined();
    const after = await say('ming', 's3', ['帮我查一下明天的天气']);
    expect((await recall('ming', '我能用青霉素吗', after, 's4')).context).not.toContain('待确认');

    expect((await confirm(memory.memoryId)).body).toMatchObject({ changed: false });
    expect((await confirm('no-such-memory', 404)).body).toMatchObject({ fields: ['memoryId'] });
    expect((await confirm('bad%20id', 400)).body).toMatchObject({ fields: ['memoryId'] });
    await engram.http().post(`/v1/users/someone-else/memories/${memory.memoryId}/confirm`).expect(404);
  });

  it('an export carries the conflict, and an import keeps it', async () => {
    await say('ying', 's1', ['我对青霉素过敏'], 3);
    await say('ying', 's2', ['我可以用青霉素'], 1);
    const bundle = (await engram.http().get('/v1/users/ying/export').expect(200)).body as { memories: StoredMemory[] };
    const exported = bundle.memories.find((m) => m.kind !== 'episode');
    expect(exported?.conflict).toMatchObject({ previousVersion: 1, previousContent: '我对青霉素过敏' });
    await engram.http().post('/v1/users/ying-copy/import').send(bundle).expect(200);
    const [copied] = await facts('ying-copy');
    expect(copied).toMatchObject({ value: 'none', pinned: true, conflict: exported!.conflict });
  });

  it('"我不吃香菜", then in another session "我现在吃香菜了": one current memory, in conflict, the old value as history', async () => {
    await say('tang', 's1', ['我不吃香菜'], 4);
    await say('tang', 's2', ['帮我查一下明天的天气'], 1);
    const after = await say('tang', 's3', ['我现在吃香菜了'], 1);
    const active = (await facts('tang')).filter((m) => m.status === 'active');
    expect(active.map((m) => [m.attribute, m.content, m.conflict?.previousContent])).toEqual([
      ['preference:香菜', '我现在吃香菜了', '我不吃香菜'],
    ]);
    const { context } = await recall('tang', '晚饭吃什么好', after, 's4');
    expect(context.split('\n').filter((line) => line.includes('不吃香菜'))).toEqual(['  （以前：我不吃香菜，12-01 至 12-06）']);
  });
});
