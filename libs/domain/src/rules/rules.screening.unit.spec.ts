import type { TurnRole } from '@engram/contracts';
import { screenTurn } from '../screening/screening.decider';
import { screeningCuesOf, type ScreeningConfig } from '../screening/screening.config';
import { LANGUAGE_PACKS } from './lang/packs';
import type { LanguagePack } from './language-pack';

/**
 * A rule only sees the turns screening found a signal in (`ExtractionDecider`: no signal, no
 * extraction). So every cue that makes a rule fire must, said alone, be a screening signal of the
 * same language pack: then whatever surrounds it, screening lets the turn through. Each family's
 * triggers are listed here; a cue added to one of them that screening does not know fails this spec.
 */
const TRIGGERS: Readonly<Record<string, { readonly role: TurnRole; readonly cues: (pack: LanguagePack) => readonly string[] }>> = {
  identity: {
    role: 'user',
    cues: ({ identity: i }) => [...i.name, ...i.employer, ...i.location, ...i.hometown, ...i.role, ...i.roleOpeners, ...i.allergy],
  },
  corrections: {
    role: 'user',
    cues: ({ corrections: c }) => [
      ...c.retract,
      ...c.retractAnaphora,
      ...c.correctionLead,
      ...c.correctionAlone,
      ...c.changeVerbs,
      ...c.assignLeads,
      ...c.forget,
    ],
  },
  plans: { role: 'user', cues: ({ plans: p, words }) => [...p.decision, ...p.task, ...p.deadline, ...(words.attributes.budget ?? [])] },
  preferences: { role: 'user', cues: ({ preferences: p, constraints: c }) => [...p.like, ...p.dislike, ...p.habit, ...c.avoid] },
  constraints: {
    role: 'user',
    cues: ({ constraints: c }) => [...c.diets, ...c.conditions, ...c.accessibility, ...c.mayTake, ...c.takenAgain],
  },
  // A procedure names a topic or how to answer ("代码示例用 TypeScript", "always reply in English").
  procedures: { role: 'user', cues: ({ procedures: p }) => [...Object.values(p.topics).flat(), ...p.responses] },
  // "记住 X" keeps X even when no other rule reads it.
  facts: { role: 'user', cues: ({ clauses }) => clauses.remember },
  assistant: { role: 'assistant', cues: ({ assistant: a }) => [...a.recommendation, ...a.promise, ...a.conclusion] },
};

/**
 * Triggers screening drops today when they are said without another signal: this restructuring
 * moved them as they were, and letting them through is a behaviour change of its own (more turns
 * extracted) to be measured before it is made. Expected to shrink; the spec fails when one of them
 * becomes a signal, so that it leaves the list.
 */
const KNOWN_SCREENED_OUT: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  zh: {
    identity: ['名字是', '住在', '我现在在', '我人在', '我目前在', '定居在', '我做', '我当'],
    corrections: [
      '忘记我',
      '忘了吧',
      '别记',
      '删掉',
      '删除',
      '那个不算',
      '这个不算',
      '忘了它',
      '不作数',
      '准确地说',
      '应该是',
      '不不',
      '换到',
      '提高到',
      '涨到',
      '加到',
      '增加到',
      '降低到',
      '减到',
      '减少到',
      '调到',
      '变为',
      '改用',
      '换用',
      '推迟到',
      '提前到',
      '挪到',
      '忘记',
      '忘了',
    ],
    plans: [
      '就这么定',
      '选定',
      '最后用',
      '还是用',
      '第二步',
      '接下来',
      '在学',
      '在做',
      '在写',
      '在搞',
      '在准备',
      '在研究',
      '最后期限',
      '之前交',
      '前交',
      '前完成',
      '之前完成',
      '经费',
    ],
    preferences: ['偏爱', '不爱', '别给我', '我从不', '从不', '我从来不', '我忌', '我一般', '一般'],
    procedures: [
      '中文',
      '英文',
      '英语',
      '汉语',
      '普通话',
      '日语',
      '日文',
      '繁体',
      '简体',
      '代码',
      '简短',
      '简洁',
      '精简',
      '啰嗦',
      '长篇大论',
      '字数',
      '格式',
      '表格',
      '列表',
      '语气',
      '口吻',
      '答复',
      '输出',
      '解释',
      '举例',
      '讲解',
      '总结',
    ],
    assistant: ['你可以去', '可以去', '很适合你', '比较适合你', '我会在', '我稍后', '总之', '综上'],
  },
  en: {
    identity: ['i go by', 'i joined', 'i come from', 'i grew up in', 'allergy to'],
    corrections: [
      'disregard',
      'ignore what i said about',
      'is cancelled',
      'was cancelled',
      'is canceled',
      'cancel',
      "that's not true anymore",
      'that is not true anymore',
      "that's not the case anymore",
      'nevermind',
      'ignore that',
      'disregard that',
      'sorry',
      'i mean',
      'to be precise',
      'wait',
      'change of plans',
      'no',
      'nope',
      'no no',
      'not quite',
      'wrong',
      'change it to',
      'is now',
      'are now',
      'increased to',
      'raised to',
      'bumped to',
      'went up to',
      'dropped to',
      'reduced to',
      'lowered to',
      'switching to',
      'pushed to',
      'postponed to',
      'now',
      'set',
      'move',
      'change',
      'reschedule',
      'update',
      'switch',
      'push',
      'put',
    ],
    plans: ["let's use", 'we picked', 'the decision is', 'to do:', 'working on', 'i must', 'i will', "i'll", 'ddl'],
    preferences: [
      'i really like',
      'i enjoy',
      'i would rather',
      "i'd rather",
      "i don't really like",
      'not a fan of',
      "i don't love",
      'i do not like',
      'i cannot stand',
      'i often',
      'i normally',
      'i tend to',
      'i typically',
      'usually',
    ],
    procedures: [
      'English',
      'Chinese',
      'Mandarin',
      'Japanese',
      'Spanish',
      'French',
      'German',
      'code example',
      'code samples',
      'code sample',
      'code snippets',
      'snippets',
      'sample code',
      'example code',
      'code blocks',
      'emoticons',
      'stickers',
      'quotes',
      'quote',
      'quoting',
      'pricing',
      'short',
      'shorter',
      'concise',
      'brief',
      'verbose',
      'long-winded',
      'markdown',
      'bullet points',
      'bullets',
      'tables',
      'format',
      'formatting',
      'tone',
      'formal',
      'casual',
      'answer',
      'reply',
      'replies',
      'respond',
      'response',
      'responses',
      'explain',
      'explanations',
      'talk to me',
    ],
    facts: ['fyi'],
    assistant: [
      'i would suggest',
      "i'd suggest",
      'you should read',
      'you might enjoy',
      'my recommendation is',
      'would suit you',
      'is a solid pick',
      'is a good pick',
      'a good fit for you',
      "i'll send you",
      "i'll follow up",
      'i will follow up',
      'in conclusion',
      'the conclusion is',
      'bottom line',
    ],
  },
};

function screeningOf(pack: LanguagePack): ScreeningConfig {
  return { version: 'test', ...screeningCuesOf([pack]) };
}

function screenedOut(pack: LanguagePack, family: string): string[] {
  const { role, cues } = TRIGGERS[family];
  const config = screeningOf(pack);
  return [...new Set(cues(pack))].filter((cue) => screenTurn({ role, text: cue }, config).signals.length === 0);
}

const rows = LANGUAGE_PACKS.flatMap((pack) => Object.keys(TRIGGERS).map((family) => [pack.language, family, pack] as const));

describe('every rule trigger is a screening signal of its language pack', () => {
  it.each(rows)('%s %s: no trigger is screened out but the known ones', (language, family, pack) => {
    const known = KNOWN_SCREENED_OUT[language]?.[family] ?? [];
    expect(screenedOut(pack, family).filter((cue) => !known.includes(cue))).toEqual([]);
  });

  it.each(rows)('%s %s: every known one is still screened out (else it leaves KNOWN_SCREENED_OUT)', (language, family, pack) => {
    const known = KNOWN_SCREENED_OUT[language]?.[family] ?? [];
    expect(known.filter((cue) => !screenedOut(pack, family).includes(cue))).toEqual([]);
  });

  it('covers both packs and every family', () => {
    expect(LANGUAGE_PACKS.map((p) => p.language)).toEqual(['zh', 'en']);
    for (const pack of LANGUAGE_PACKS)
      for (const family of Object.keys(TRIGGERS)) expect(TRIGGERS[family].cues(pack).length).toBeGreaterThan(0);
  });
});
