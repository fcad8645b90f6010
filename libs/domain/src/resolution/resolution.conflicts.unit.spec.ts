import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { parseEvent, type MemoriesExtracted, type MemoryDecision, type MemoryRecord } from '@engram/contracts';
import { extractTurn } from '../extraction/extraction.decider';
import type { ExtractedItemDraft } from '../extraction/extraction.strategy';
import { RuleExtractor } from '../rules/rule-extractor';
import { decidedInOrder, deciderSpec } from '../testing/decider-spec';
import { extracted, turnScreened } from '../testing/fixtures';
import { ResolutionDecider, type ResolutionOptions, type ResolverState } from './resolution.decider';

/**
 * Contradictions (docs/memory-model.md §3): a statement that a standing constraint does not hold
 * supersedes the constraint, and the memory carries a conflict note until the user confirms it.
 */
const RECORDED_AT = '2026-12-10T00:00:00.000Z';
const options: ResolutionOptions = { similarityThreshold: 0.85, recordedAt: RECORDED_AT };
const resolver = deciderSpec<MemoriesExtracted, ResolverState, MemoryDecision, ResolutionOptions>(ResolutionDecider, options);

const at = (day: number) => `2026-12-${String(day).padStart(2, '0')}T09:00:00.000Z`;
const said = (day: number, item: Partial<ExtractedItemDraft>) => extracted([{ validFrom: at(day), sourceTurnIds: [`t-${day}`], ...item }]);
const allergic = (day: number) =>
  said(day, { kind: 'profile', attribute: 'allergy:青霉素', value: '青霉素', content: '我对青霉素过敏', entities: [] });
const mayTake = (day: number, attribute = 'preference:青霉素') =>
  said(day, { kind: 'preference', attribute, value: 'none', content: '我可以用青霉素', entities: [] });

/** The decisions a sequence of commands makes, each on the state the previous ones left. */
const decided = (...commands: MemoriesExtracted[]): MemoryDecision[] =>
  decidedInOrder<MemoriesExtracted, ResolverState, MemoryDecision, ResolutionOptions>(ResolutionDecider, options, commands);

const facts = (state: ResolverState): MemoryRecord[] => [...state.values()].filter((m) => m.kind !== 'episode');

describe('ResolutionDecider: contradictions', () => {
  it('given an allergy, when "我可以用青霉素" (read on another family) arrives, then it supersedes the allergy with a conflict note, still pinned', () => {
    const { events, state } = resolver
      .given(decided(allergic(1)))
      .when(mayTake(3))
      .result();
    expect(events.map((e) => e.type)).toEqual(['MemorySuperseded']);
    const [memory] = facts(state);
    expect(memory).toMatchObject({
      mergeKey: 'user/allergy:青霉素',
      kind: 'profile',
      value: 'none',
      content: '我可以用青霉素',
      version: 2,
      pinned: true,
      sensitive: true,
      conflict: { previousVersion: 1, previousValue: '青霉素', previousContent: '我对青霉素过敏', previousFrom: at(1), since: at(3) },
    });
    expect(memory.history.map((h) => h.content)).toEqual(['我对青霉素过敏']);
    expect(() => parseEvent(events[0])).not.toThrow();
  });

  it('given the contradiction, when the user says the newer again, then it is reinforced, the note goes and it is no longer pinned', () => {
    const { events, state } = resolver
      .given(decided(allergic(1), mayTake(3)))
      .when(mayTake(5, 'allergy:青霉素'))
      .result();
    expect(events.map((e) => e.type)).toEqual(['MemoryReinforced']);
    const [memory] = facts(state);
    expect(memory).toMatchObject({ value: 'none', mentionCount: 2, pinned: false });
    expect(memory.conflict).toBeUndefined();
  });

  it('given the contradiction, when the allergy is said again, then the allergy is current, contradicting the denial', () => {
    const { state } = resolver
      .given(decided(allergic(1), mayTake(3)))
      .when(allergic(6))
      .result();
    const [memory] = facts(state);
    expect(memory).toMatchObject({
      value: '青霉素',
      version: 3,
      pinned: true,
      conflict: { previousVersion: 2, previousValue: 'none', previousContent: '我可以用青霉素', since: at(6) },
    });
  });

  it('given a food avoided, when "我现在吃香菜了", then the avoid is superseded with a conflict note', () => {
    const avoid = said(1, { attribute: 'preference:香菜', value: 'avoid', content: '我不吃香菜', entities: [] });
    const eats = said(4, { attribute: 'preference:香菜', value: 'none', content: '我现在吃香菜了', entities: [] });
    const [memory] = facts(resolver.given(decided(avoid)).when(eats).result().state);
    expect(memory).toMatchObject({ value: 'none', pinned: true, conflict: { previousValue: 'avoid', previousContent: '我不吃香菜' } });
  });

  it('given a liking, when a change of mind that lifts no constraint ("我喜欢吃辣" → "我不吃辣"), then a plain supersession, no note', () => {
    const likes = said(1, { attribute: 'preference:辣', value: 'like', content: '我喜欢吃辣', entities: [] });
    const avoids = said(4, { attribute: 'preference:辣', value: 'avoid', content: '我不吃辣', entities: [] });
    const [memory] = facts(resolver.given(decided(likes)).when(avoids).result().state);
    expect(memory).toMatchObject({ value: 'avoid', version: 2 });
    expect(memory.conflict).toBeUndefined();
  });

  it('given no constraint on the thing, when "I can eat peanuts now", then nothing is decided', () => {
    resolver
      .given(decided(said(1, { attribute: 'preference:peanuts', value: 'like', content: 'I love peanuts', entities: [] })))
      .when(said(3, { attribute: 'preference:peanuts', value: 'none', content: 'I can eat peanuts now', entities: [] }))
      .thenNothing();
  });

  it("given another person's allergy, when the user says they can take it, then the other person's allergy stands", () => {
    const daughters = said(1, {
      kind: 'profile',
      subject: 'daughter',
      attribute: 'allergy:花生',
      value: '花生',
      content: '我女儿对花生过敏',
    });
    resolver
      .given(decided(daughters))
      .when(said(3, { attribute: 'preference:花生', value: 'none', content: '我可以吃花生了', entities: [] }))
      .thenNothing();
  });

  it('given a contradiction, when a new value supersedes it, then the note goes with the value it described', () => {
    const diet = (day: number, value: string, content: string) =>
      said(day, { kind: 'profile', attribute: 'diet:吃素', value, content, entities: [] });
    const { state } = resolver
      .given(decided(diet(1, '吃素', '我吃素'), diet(3, 'none', '我不吃素了')))
      .when(diet(5, '吃素', '我又吃素了'))
      .result();
    const [memory] = facts(state);
    // Back to the constraint: a contradiction of the denial, not of the first value.
    expect(memory.conflict).toMatchObject({ previousVersion: 2, previousValue: 'none' });
  });
});

describe('from chat to contradiction (screened turn → rules → resolution)', () => {
  const rules = new RuleExtractor();

  async function say(turns: readonly [text: string, day: number][]): Promise<ResolverState> {
    let state = ResolutionDecider.initialState();
    for (const [i, [text, day]] of turns.entries()) {
      const command = await extractTurn(turnScreened(text, { turn: `t-${i}`, at: at(day), session: `s-${i}` }), rules, RECORDED_AT);
      if (!command) continue;
      for (const event of ResolutionDecider.decide(command, state, options)) state = ResolutionDecider.evolve(state, event);
    }
    return state;
  }

  it.each([
    ['我对青霉素过敏', '我可以用青霉素', 'allergy:青霉素'],
    ["I'm allergic to penicillin", 'I can take penicillin now', 'allergy:penicillin'],
    ['我对青霉素过敏', '医生说我其实对青霉素不过敏', 'allergy:青霉素'],
    ["I'm allergic to penicillin", "I'm no longer allergic to penicillin", 'allergy:penicillin'],
    ['我女儿对花生过敏', '我女儿现在可以吃花生了', 'allergy:花生'],
    ['My daughter is allergic to peanuts', 'My daughter can eat peanuts now', 'allergy:peanuts'],
    ['我不吃香菜', '我现在吃香菜了', 'preference:香菜'],
    ["I don't eat cilantro", 'I can eat cilantro now', 'preference:cilantro'],
    ['我吃素', '我不吃素了', 'diet:吃素'],
    ["I'm vegetarian", "I'm not vegetarian anymore", 'diet:vegetarian'],
    ['我有糖尿病', '我没有糖尿病了', 'health:糖尿病'],
  ])(
    'given "%s", then days later "%s" in another session: one current memory (%s), the newer, with a conflict note',
    async (older, newer, attribute) => {
      const state = await say([
        [older, 1],
        [newer, 4],
      ]);
      const onKey = facts(state).filter((m) => m.status === 'active');
      expect(onKey.map((m) => [m.attribute, m.content, m.conflict?.previousContent])).toEqual([[attribute, newer, older]]);
      // The turn that said the older value is history too: only the newer turn's episode is current.
      const episodes = [...state.values()].filter((m) => m.kind === 'episode' && m.status === 'active');
      expect(episodes.map((m) => m.content)).toEqual([newer]);
    },
  );

  it('given the contradiction, when the user confirms it in their own words days later, then the note is gone', async () => {
    const state = await say([
      ['我对青霉素过敏', 1],
      ['我可以用青霉素', 4],
      ['对，我现在可以用青霉素了', 8],
    ]);
    const [memory] = facts(state).filter((m) => m.status === 'active');
    expect(memory).toMatchObject({ attribute: 'allergy:青霉素', value: 'none', pinned: false });
    expect(memory.conflict).toBeUndefined();
  });
});
