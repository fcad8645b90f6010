import { defaultScreeningConfig, screeningCuesOf } from '../screening/screening.config';
import { LANGUAGE_PACKS } from './lang/packs';
import { mergePacks } from './merge-packs';
import { defaultRuleExtractorConfig, ruleCuesOf } from './rule-extractor.config';

describe('mergePacks', () => {
  it('joins lists in pack order, merges records key by key and keeps patterns as they are', () => {
    const frame = /对(.+?)过敏/u;
    const merged = mergePacks([
      { cues: ['我喜欢'], topics: { emoji: ['表情'] }, frames: [frame], language: 'zh' },
      { cues: ['i like'], topics: { emoji: ['emoji'], tone: ['tone'] }, frames: [], language: 'en' },
    ]);
    expect(merged).toEqual({
      cues: ['我喜欢', 'i like'],
      topics: { emoji: ['表情', 'emoji'], tone: ['tone'] },
      frames: [frame],
      language: 'zh',
    });
    expect(merged.frames[0]).toBe(frame);
  });

  it('makes the default configurations from the shipped packs, Chinese first', () => {
    expect(defaultRuleExtractorConfig).toMatchObject({ version: 'rules-10', ...ruleCuesOf(LANGUAGE_PACKS) });
    expect(defaultScreeningConfig).toEqual({ version: 'screening-8', ...screeningCuesOf(LANGUAGE_PACKS) });
    expect(defaultRuleExtractorConfig.preferences.like.slice(0, 1)).toEqual(LANGUAGE_PACKS[0].preferences.like.slice(0, 1));
  });
});
