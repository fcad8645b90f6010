import { defaultTimeScopes, endOfScope, scopeEnd, TIME_SCOPES, turnScopeEnd } from './time-scope';

const AT = '2026-11-30T08:00:00.000Z';
const plus = (hours: number) => new Date(Date.parse(AT) + hours * 3_600_000).toISOString();

describe('time scopes a statement sets for itself', () => {
  it.each([
    ['今天头疼得厉害，先别跟我聊工作', 24],
    ["I'm so tired today", 24],
    ['这两天在出差，消息回得会慢一点', 72],
    ["I'm in Berlin this week for a conference.", 7 * 24],
    ['这周先不要给我推荐健身课', 7 * 24],
    ["For this trip I'll only pack a carry-on.", 14 * 24],
    ['这次先用蓝色的模板', 2],
    ['Use the staging database for this task.', 2],
  ])('given "%s", then it holds for %d hours', (text, hours) => {
    expect(scopeEnd(text, AT)).toBe(plus(hours));
    expect(turnScopeEnd(text, AT)).toBe(plus(hours));
  });

  it.each([['我今天入职了字节'], ['I moved to Leeds today'], ['Today I went to a concert'], ['我最喜欢的水果是芒果'], ['I live in Porto']])(
    'given "%s" (what happened, or no scope), then it holds',
    (text) => {
      expect(scopeEnd(text, AT)).toBeNull();
      expect(turnScopeEnd(text, AT)).toBeNull();
    },
  );

  it('given a turn that also says something lasting, then the turn holds though one sentence is scoped', () => {
    expect(turnScopeEnd("I'm going to try making it tonight! My favourite cuisine is Thai.", AT)).toBeNull();
    expect(turnScopeEnd('好的！今天很忙', AT)).toBe(plus(24));
  });

  it('given a working-memory window, then a choice for the task holds that long', () => {
    expect(scopeEnd('这次先用0.5g的', AT, { ...defaultTimeScopes, workingMemoryMinutes: 5 })).toBe(
      new Date(Date.parse(AT) + 5 * 60_000).toISOString(),
    );
  });
});

describe("the end of a named scope (endOfScope, which the LLM strategy maps its model's scope with)", () => {
  it.each([
    ['day', 24],
    ['days', 72],
    ['week', 7 * 24],
    ['trip', 14 * 24],
    ['task', 2],
  ] as const)('given "%s", then it ends %d hours later, as the words of that scope do', (scope, hours) => {
    expect(endOfScope(scope, AT)).toBe(plus(hours));
  });

  it('given a working-memory window, then a task ends with it; given no instant, then no end', () => {
    expect(endOfScope('task', AT, 5)).toBe(new Date(Date.parse(AT) + 5 * 60_000).toISOString());
    expect(endOfScope('week', 'not a time')).toBeNull();
    expect(TIME_SCOPES).toEqual(['day', 'days', 'week', 'trip', 'task']);
  });
});
