import 'reflect-metadata'; // @engram/contracts' validation decorators need it
import type { MemoriesExtracted, MemoryDecision, MemoryRecord } from '@engram/contracts';
import { ResolutionDecider } from './resolution.decider';
import type { ResolutionOptions, SensitiveFacts } from './resolution.state';
import { extracted } from '../testing/fixtures';

/** What the resolver pins: the name, procedures, and the standing constraints of anyone the user speaks of. */
const RECORDED_AT = '2026-12-01T00:00:00.000Z';

function decided(command: MemoriesExtracted, sensitiveFacts?: SensitiveFacts): MemoryRecord[] {
  const options: ResolutionOptions = { similarityThreshold: 0.8, recordedAt: RECORDED_AT, ...(sensitiveFacts ? { sensitiveFacts } : {}) };
  return ResolutionDecider.decide(command, ResolutionDecider.initialState(), options).map((event: MemoryDecision) => event.payload.memory);
}

const turn = (attribute: string, value: string, extra: Record<string, unknown> = {}) => ({
  kind: 'profile' as const,
  attribute,
  value,
  content: `${attribute} ${value}`,
  sourceTurnIds: ['t-1'],
  ...extra,
});

describe('pinning', () => {
  it('given constraints of the user and of a person they name, then each is pinned', () => {
    const memories = decided(
      extracted([
        turn('allergy:花生', '花生', { subject: 'daughter' }),
        turn('diet:vegetarian', 'vegetarian'),
        turn('health:糖尿病', '糖尿病'),
        turn('accessibility:wheelchair', 'wheelchair', { subject: 'mother' }),
        { kind: 'preference', attribute: 'preference:香菜', value: 'avoid', content: '不吃香菜', sourceTurnIds: ['t-1'] },
      ]),
    );
    expect(memories.map((m) => [m.subject, m.attribute, m.pinned])).toEqual([
      ['daughter', 'allergy:花生', true],
      ['user', 'diet:vegetarian', true],
      ['user', 'health:糖尿病', true],
      ['mother', 'accessibility:wheelchair', true],
      ['user', 'preference:香菜', true],
    ]);
  });

  it('given a taste, then it is ranked, not pinned; a role, an employer, a city are the profile: pinned', () => {
    const memories = decided(
      extracted([
        { kind: 'preference', attribute: 'preference:开会', value: 'dislike', content: '不喜欢开会', sourceTurnIds: ['t-1'] },
        turn('role', '后端工程师'),
        turn('employer', '字节跳动'),
        turn('location', '杭州'),
      ]),
    );
    expect(memories.map((m) => [m.attribute, m.pinned])).toEqual([
      ['preference:开会', false],
      ['role', true],
      ['employer', true],
      ['location', true],
    ]);
  });

  it('given health data, then it is marked sensitive; a diet is not', () => {
    const memories = decided(extracted([turn('allergy:peanuts', 'peanuts'), turn('health:asthma', 'asthma'), turn('diet:vegan', 'vegan')]));
    expect(memories.map((m) => [m.attribute, m.sensitive ?? false])).toEqual([
      ['allergy:peanuts', true],
      ['health:asthma', true],
      ['diet:vegan', false],
    ]);
  });

  it('given sensitive facts kept unpinned, then health data is stored but ranked; other constraints stay pinned', () => {
    const memories = decided(extracted([turn('health:asthma', 'asthma'), turn('diet:vegan', 'vegan')]), 'unpinned');
    expect(memories.map((m) => [m.attribute, m.pinned])).toEqual([
      ['health:asthma', false],
      ['diet:vegan', true],
    ]);
  });

  it('given sensitive facts off, then neither the health fact nor the episode of its turn is stored; other turns are', () => {
    const memories = decided(
      extracted([
        turn('health:asthma', 'asthma', { sourceTurnIds: ['t-1'] }),
        { kind: 'episode', subject: 'user', attribute: 'episode:s-1:t-1', value: '', content: 'I have asthma', sourceTurnIds: ['t-1'] },
        { kind: 'episode', subject: 'user', attribute: 'episode:s-1:t-2', value: '', content: 'I live in Porto', sourceTurnIds: ['t-2'] },
        turn('location', 'Porto', { sourceTurnIds: ['t-2'] }),
      ]),
      'off',
    );
    expect(memories.map((m) => m.attribute)).toEqual(['episode:s-1:t-2', 'location']);
  });
});
