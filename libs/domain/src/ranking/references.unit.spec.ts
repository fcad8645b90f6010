import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import { memory } from '../testing/fixtures';
import { tokenize } from '../text/tokenizer';
import { understandQuery } from './query-understanding';
import { episodeReferentFamilies, expandReference, referenceAskedFor, referentFamiliesOf } from './references';

const ASKED = new Date('2026-11-25T10:00:00.000Z');

describe('referenceAskedFor: questions that point back at something said before', () => {
  it.each([
    ['就按上次说的办吧', ['plan', 'recommendation', 'remembered'], false],
    ["Let's do what we said last time.", ['plan', 'recommendation', 'remembered'], false],
    ['Remind me of the plan we discussed', ['plan'], false],
    ['就按上次说的方案办吧，第一步是什么', ['plan'], false],
    ['我之前让你记的那个配置项是什么', ['remembered'], false],
    ['What was the limit I asked you to remember?', ['remembered'], false],
    ['上次你推荐的那家火锅店叫什么', ['recommendation'], false],
    ['What was that book you recommended last time?', ['recommendation'], false],
    ['那个方案后来怎么样了', ['plan'], true],
    ['How did that plan go?', ['plan'], true],
    ['那个面试后来怎么样了', ['plan', 'recommendation', 'remembered'], true],
    ['How did the migration go in the end?', ['plan', 'recommendation', 'remembered'], true],
  ])('given "%s", then it points at %j (follow-up: %s)', (question, families, followUp) => {
    expect(referenceAskedFor(question)).toEqual({ families, followUp });
    expect(understandQuery(question, ASKED).reference).toEqual({ families, followUp });
  });

  it.each([
    // a time back without a verb of saying is an event, not a conversation
    '国庆去成都那次是几号出发的？',
    'When was the last time Caroline went hiking?',
    // "之前" after a date is "before"
    '移机预计哪天之前能完成？',
    // plans and recommendations asked about, not pointed back at
    "What are Caroline's plans for the summer?",
    '你推荐的那家清淡的川菜馆叫什么？',
    'What did you recommend for the cloud migration?',
    "What happened to Melanie's son on their road trip?",
    '我的宽带套餐一开始选的多少钱，后来升级成了多少钱的？',
  ])('given "%s", then none', (question) => {
    expect(referenceAskedFor(question)).toBeNull();
    expect(understandQuery(question, ASKED).reference).toBeUndefined();
  });
});

describe('expandReference: what the index is also searched for', () => {
  it('given a reference naming nothing, then the attribute words of every referent and the words their lines hold, once', () => {
    const terms = tokenize(expandReference('就按上次说的办吧'));
    expect(terms).toEqual(expect.arrayContaining(['decision', 'task', 'recommendation', 'note', '推荐', 'remember', '记住']));
    expect(expandReference('就按上次说的办吧').startsWith('就按上次说的办吧 ')).toBe(true);
  });

  it('given a reference naming a plan, then only what plans are found by', () => {
    const expanded = tokenize(expandReference('Remind me of the plan we discussed'));
    expect(expanded).toEqual(expect.arrayContaining(['decision', 'task']));
    expect(expanded).not.toContain('recommendation');
  });

  it('given any other question, then the question as asked', () => {
    expect(expandReference('我喜欢吃什么')).toBe('我喜欢吃什么');
  });
});

describe('referentFamiliesOf: what a reference may point at, from the record', () => {
  it.each([
    ['a decision', memory({ kind: 'decision', subject: 'user', confidence: 0.8 }), ['plan']],
    ['a task', memory({ kind: 'task', subject: 'user', confidence: 0.75 }), ['plan']],
    ["the assistant's recommendation", memory({ kind: 'fact', subject: 'assistant', confidence: 0.8 }), ['recommendation']],
    ['what the user asked to remember', memory({ kind: 'fact', subject: 'user', confidence: 0.9 }), ['remembered']],
    ['a plain fact', memory({ kind: 'fact', subject: 'user', confidence: 0.8 }), []],
    ['an episode', memory({ kind: 'episode', subject: 'user', confidence: 0.7 }), []],
    ["the user's rule for the assistant", memory({ kind: 'procedure', subject: 'user', confidence: 0.9 }), []],
  ])('given %s, then %j', (_, record, families) => {
    expect(referentFamiliesOf(record)).toEqual(families);
  });
});

describe("episodeReferentFamilies: an episode stands for the referents read from its turn (its keys' first words)", () => {
  it.each([
    [['decision launch beta on march 3'], ['plan']],
    [['recommendation thinking fast and slow', 'Any book on decision making?'], ['recommendation']],
    [['note 测试环境的端口是 8443'], ['remembered']],
    [['editor VS Code'], []],
    [[], []],
  ])('given the keys %j, then %j', (keys, families) => {
    expect(episodeReferentFamilies(memory({ kind: 'episode', keys }))).toEqual(families);
  });

  it('given a memory that is no episode, then none (a fact is a referent by what it is)', () => {
    expect(episodeReferentFamilies(memory({ kind: 'fact', keys: ['decision x'] }))).toEqual([]);
  });
});
