import type { ExtractionInput } from '@engram/domain';
import { EXTRACTION_SCHEMA, EXTRACTION_SYSTEM_PROMPT, LLM_SCOPES } from './extraction-prompt';
import { OpenAiChatExtractor, type OpenAiChatExtractorOptions } from './openai-chat-extractor';
import { ChatCompletionsStub, FIXTURE_TURNS } from './testing/chat-completions-stub';

/*
 * Prompt 5, "what is true now" (issue 30), against a local HTTP stub serving hand-authored
 * chat-completions answers (fixtures/README.md: written by hand, not recorded from a model): standing
 * constraints, time scopes, favourites keyed as likings, changes across sessions, contradictions —
 * each in Chinese and English — and what the adapter makes of the model's answer: families and
 * subjects keyed as the rules key them, a scope as `expiresAt`, bad output ignored, never a crash.
 */

const AT = '2026-11-30T09:00:00.000Z';
const later = (minutes: number) => new Date(Date.parse(AT) + minutes * 60_000).toISOString();
const HOUR = 60;

const turn = (text: string, overrides: Partial<ExtractionInput> = {}): ExtractionInput => ({
  tenantId: 'default',
  userId: 'u1',
  sessionId: 's1',
  turnId: 't1',
  role: 'user',
  text,
  occurredAt: AT,
  ephemeral: false,
  signals: [],
  ...overrides,
});

/** An answer of the model, as the chat-completions endpoint sends it. */
const answer = (items: unknown[]) => ({
  body: {
    choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify({ items }), refusal: null }, finish_reason: 'stop' }],
  },
});

const modelItem = (overrides: Record<string, unknown>) => ({
  kind: 'profile',
  subject: 'user',
  attribute: 'a',
  value: 'v',
  content: 'c',
  entities: [],
  confidence: 0.9,
  importance: 0.8,
  operation: 'assert',
  corrects: false,
  scope: 'none',
  ...overrides,
});

describe('OpenAiChatExtractor, prompts 5 and 6: what is true now', () => {
  const stub = new ChatCompletionsStub();
  let url: string;
  const extractor = (options: Partial<OpenAiChatExtractorOptions> = {}) =>
    new OpenAiChatExtractor({ url, model: 'gpt-4o-mini', backoffMs: 1, retries: 0, ...options });
  const read = async (text: string, options: Partial<OpenAiChatExtractorOptions> = {}) => extractor(options).extract(turn(text));

  beforeAll(async () => {
    url = await stub.start();
  });
  afterAll(() => stub.stop());
  beforeEach(() => stub.reset());

  describe('(a) standing constraints, for the user and the people they name', () => {
    it.each([
      [
        'Chinese',
        FIXTURE_TURNS.constraintsZh.text,
        [
          ['profile', 'daughter', 'allergy:花生', '花生'],
          ['profile', 'wife', 'diet:吃素', '吃素'],
          ['profile', 'user', 'health:高血压', '高血压'],
          ['preference', 'user', 'preference:香菜', 'avoid'],
          ['profile', 'mother', 'accessibility:轮椅', '轮椅'],
        ],
      ],
      [
        'English',
        FIXTURE_TURNS.constraintsEn.text,
        [
          ['profile', 'daughter', 'allergy:peanuts', 'peanuts'],
          ['profile', 'wife', 'diet:vegetarian', 'vegetarian'],
          ['profile', 'user', 'health:asthma', 'asthma'],
          ['preference', 'user', 'preference:cilantro', 'avoid'],
          ['profile', 'mother', 'accessibility:wheelchair', 'wheelchair'],
        ],
      ],
    ])(
      'given a turn of constraints (%s), then one item per constraint, keyed by family and thing as the rules key them',
      async (_, text, expected) => {
        const items = await read(text);
        expect(items.map((i) => [i.kind, i.subject, i.attribute, i.value])).toEqual(expected);
        expect(items.every((i) => i.operation === 'assert' && i.expiresAt === undefined)).toBe(true);
      },
    );

    it('given families, kinds and relations spelled another way, then the keys and kinds the resolver pins by', async () => {
      stub.reset(() =>
        answer([
          modelItem({ kind: 'fact', subject: 'My Daughter', attribute: 'Allergy: Peanuts', value: 'peanuts' }),
          modelItem({ kind: 'preference', subject: '老婆', attribute: 'diet：吃素', value: '吃素' }),
          modelItem({ kind: 'fact', subject: '我妈', attribute: 'accessibility:Colour Blind', value: 'colour blind' }),
          modelItem({ kind: 'fact', subject: 'User', attribute: 'Preference: Window Seats', value: 'Like' }),
          modelItem({ kind: 'preference', subject: '女儿', attribute: 'preference:香菜', value: 'Avoid' }),
          modelItem({ kind: 'preference', subject: 'Alice', attribute: 'diet_plan', value: 'keto' }),
          modelItem({ kind: 'profile', subject: 'user', attribute: 'health:', value: 'x' }),
        ]),
      );
      expect((await read('x')).map((i) => [i.kind, i.subject, i.attribute, i.value])).toEqual([
        ['profile', 'daughter', 'allergy:peanuts', 'peanuts'],
        ['profile', 'wife', 'diet:吃素', '吃素'],
        ['profile', 'mother', 'accessibility:colour-blind', 'colour blind'],
        ['preference', 'user', 'preference:window-seats', 'like'],
        ['preference', 'daughter', 'preference:香菜', 'avoid'],
        // Only a colon separates a family: "diet_plan" is a plain attribute; a name stays as written.
        ['preference', 'Alice', 'diet_plan', 'keto'],
        // "health:" names no condition: a plain slug, never an empty family key.
        ['profile', 'user', 'health', 'x'],
      ]);
    });

    it("given the name of a person the user names by relation, then the user's family fact the rules pin (family:<relation>)", async () => {
      stub.reset(() =>
        answer([
          modelItem({ kind: 'profile', subject: '女儿', attribute: 'name', value: '小美' }),
          modelItem({ kind: 'profile', subject: 'my son', attribute: 'Name', value: 'Leo' }),
          modelItem({ kind: 'profile', subject: 'Alice', attribute: 'name', value: 'Alice Chen' }),
          modelItem({ kind: 'profile', subject: 'daughter', attribute: 'birthday', value: '5月3日' }),
        ]),
      );
      expect((await read('x')).map((i) => [i.kind, i.subject, i.attribute, i.value])).toEqual([
        ['profile', 'user', 'family:daughter', '小美'],
        ['profile', 'user', 'family:son', 'Leo'],
        // A person named by their name, and a relation's other facts, stay theirs.
        ['profile', 'Alice', 'name', 'Alice Chen'],
        ['profile', 'daughter', 'birthday', '5月3日'],
      ]);
    });

    it('asks for the families, avoid and relation subjects in the prompt', () => {
      for (const rule of ['"allergy:<what>"', '"diet:<diet>"', '"health:<condition>"', '"accessibility:<need>"', '"preference:<thing>"']) {
        expect(EXTRACTION_SYSTEM_PROMPT).toContain(rule);
      }
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('"avoid" (does not or cannot eat or drink it');
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('"我女儿对花生过敏" → "daughter"');
    });
  });

  describe('(b) a time scope per item, as expiresAt from when the turn was said', () => {
    it.each([
      [
        'Chinese',
        FIXTURE_TURNS.scopeZh.text,
        [
          ['whereabouts', later(72 * HOUR)],
          ['procedure:course_recommendations', later(7 * 24 * HOUR)],
          ['report_template', later(120)],
          ['preference:咖啡', undefined],
        ],
      ],
      [
        'English',
        FIXTURE_TURNS.scopeEn.text,
        [
          ['whereabouts', later(7 * 24 * HOUR)],
          ['packing', later(14 * 24 * HOUR)],
          ['task_database', later(120)],
          ['diet:vegan', undefined],
        ],
      ],
    ])('given scoped statements (%s), then each ends with its scope; "from today on" holds', async (_, text, expected) => {
      const items = await read(text);
      expect(items.map((i) => [i.attribute, i.expiresAt])).toEqual(expected);
      expect(items.some((i) => 'scope' in i)).toBe(false);
    });

    it('given a working-memory window, then a choice for the task at hand holds that long', async () => {
      const items = await read(FIXTURE_TURNS.scopeEn.text, { workingMemoryMinutes: 30 });
      expect(items.find((i) => i.attribute === 'task_database')?.expiresAt).toBe(later(30));
      expect(() => extractor({ workingMemoryMinutes: 0 })).toThrow(/workingMemoryMinutes must be a positive number, got 0/);
    });

    it('given scopes it does not know (a word, a number, none at all), then the items are kept and hold; a scope in capitals is read', async () => {
      const items = await read(FIXTURE_TURNS.scopeInvalid.text);
      expect(items.map((i) => [i.attribute, i.value, i.expiresAt])).toEqual([
        ['whereabouts', 'Kyoto', undefined], // "fortnight"
        ['task_database', 'staging', later(7 * 24 * HOUR)], // "WEEK"
        ['gym', 'FitOne', undefined], // 7
        ['preference:tea', 'like', undefined], // no "scope"
      ]);
    });

    it("decides its items' scopes itself, and asks for one per item in the strict schema", () => {
      expect(extractor().decidesTimeScopes).toBe(true);
      const item = EXTRACTION_SCHEMA.properties.items.items;
      expect(item.required).toContain('scope');
      expect(item.properties.scope.enum).toEqual(['none', 'day', 'days', 'week', 'trip', 'task']);
      expect(LLM_SCOPES).toEqual(item.properties.scope.enum);
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('"从今天起我吃素"');
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('"I\'m in Berlin this week" is "whereabouts", not "location"');
    });
  });

  describe('(c) favourites said value first, and paraphrases of a liking, keyed like the liking', () => {
    it('given three ways of saying it in Chinese, then one key and one value', async () => {
      for (const text of [FIXTURE_TURNS.favouriteZh.text, FIXTURE_TURNS.favouriteHabitZh.text, FIXTURE_TURNS.likingZh.text]) {
        expect((await read(text)).map((i) => [i.kind, i.attribute, i.value])).toEqual([['preference', 'preference:乌龙茶', 'like']]);
      }
    });

    it("given a favourite said value first and a paraphrase in English, then the liking's key; a favourite of a single-valued kind takes the kind", async () => {
      expect((await read(FIXTURE_TURNS.favouriteEn.text)).map((i) => [i.kind, i.attribute, i.value])).toEqual([
        ['preference', 'preference:window-seats', 'like'],
        ['preference', 'editor', 'Neovim'],
      ]);
      expect((await read(FIXTURE_TURNS.likingEn.text)).map((i) => [i.kind, i.attribute, i.value])).toEqual([
        ['preference', 'preference:window-seats', 'like'],
      ]);
      expect(EXTRACTION_SYSTEM_PROMPT).toContain(
        '"乌龙茶是我最爱的茶", "我平时最常喝的就是乌龙茶" and "我喜欢喝乌龙茶" are all "preference:乌龙茶" = "like"',
      );
    });
  });

  describe('(d) changes of mind and of circumstance, said in a later session', () => {
    it.each([
      [
        'Chinese',
        FIXTURE_TURNS.changeZhBefore.text,
        FIXTURE_TURNS.changeZh.text,
        [
          ['employer', '阿里巴巴', undefined],
          ['location', '杭州', undefined],
        ],
        [
          ['location', '上海', 'named'],
          ['employer', '字节跳动', 'named'],
          ['shipping_address', '上海市浦东新区世纪大道100号', 'named'],
        ],
      ],
      [
        'English',
        FIXTURE_TURNS.changeEnBefore.text,
        FIXTURE_TURNS.changeEn.text,
        [
          ['employer', 'Stripe', undefined],
          ['location', 'Porto', undefined],
        ],
        [
          ['location', 'Lisbon', 'named'],
          ['employer', 'Google', 'named'],
        ],
      ],
    ])("given a new job and city (%s), then named corrections on the standing facts' attributes", async (_, before, change, was, now) => {
      const readAs = async (text: string) => (await read(text)).map((i) => [i.attribute, i.value, i.correction]);
      expect(await readAs(before)).toEqual(was);
      expect(await readAs(change)).toEqual(now);
    });

    it.each([
      ['Chinese', FIXTURE_TURNS.planZhBefore.text, FIXTURE_TURNS.planZh.text, '高热量', '低卡'],
      ['English', FIXTURE_TURNS.planEnBefore.text, FIXTURE_TURNS.planEn.text, 'high-calorie', 'low-calorie'],
    ])('given a change of plan (%s), then a named correction of the plan, not "@last"', async (_, before, change, was, now) => {
      expect((await read(before)).map((i) => [i.attribute, i.value, i.correction])).toEqual([['meal_plan', was, undefined]]);
      expect((await read(change)).map((i) => [i.attribute, i.value, i.correction])).toEqual([['meal_plan', now, 'named']]);
    });

    it("gives a standing fact its attribute's words in both languages, so the new value is found by them as the rules' is", async () => {
      expect((await read(FIXTURE_TURNS.changeEn.text)).map((i) => [i.attribute, i.keys])).toEqual([
        ['location', ['住址 所在城市 城市 city location']],
        ['employer', ['公司 单位 employer company']],
      ]);
      expect((await read(FIXTURE_TURNS.constraintsEn.text)).every((i) => i.keys === undefined)).toBe(true);
    });

    it('tells the model that a change said later, in any session, corrects the standing fact under its own attribute', () => {
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('in another session days later too, with or without a correction word');
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('exactly the attribute the standing fact has');
      for (const name of ['"employer"', '"location"', '"shipping_address"', '"editor"', '"meal_plan"'])
        expect(EXTRACTION_SYSTEM_PROMPT).toContain(name);
    });
  });

  describe('(e) contradictions: a constraint said not to hold is denied, not retracted (prompt 6)', () => {
    it.each([
      [
        'Chinese',
        FIXTURE_TURNS.contradictionZhBefore.text,
        [FIXTURE_TURNS.contradictionZh.text, FIXTURE_TURNS.contradictionZhDoctor.text],
        'allergy:青霉素',
        '青霉素',
      ],
      [
        'English',
        FIXTURE_TURNS.contradictionEnBefore.text,
        [FIXTURE_TURNS.contradictionEn.text, FIXTURE_TURNS.contradictionEnActually.text],
        'allergy:penicillin',
        'penicillin',
      ],
    ])(
      'given an allergy, then "I can take it" (%s) denies that allergy: its key, the value none',
      async (_, before, contradictions, attribute, what) => {
        expect((await read(before)).map((i) => [i.kind, i.attribute, i.value, i.operation])).toEqual([
          ['profile', attribute, what, 'assert'],
        ]);
        for (const text of contradictions) {
          expect((await read(text)).map((i) => [i.kind, i.subject, i.attribute, i.value, i.operation, i.correction])).toEqual([
            ['profile', 'user', attribute, 'none', 'assert', 'named'],
          ]);
        }
      },
    );

    it("given a retraction of a family's fact with a value beside it, then the value is dropped: the key names the fact", async () => {
      stub.reset(() =>
        answer([
          modelItem({ attribute: 'allergy:青霉素', value: '青霉素', operation: 'retract', corrects: true }),
          modelItem({ kind: 'preference', attribute: 'editor', value: 'Vim', operation: 'retract' }),
        ]),
      );
      expect((await read('x')).map((i) => [i.attribute, i.value, i.operation])).toEqual([
        ['allergy:青霉素', '', 'retract'],
        // A plain attribute keeps it: "I no longer use Vim" must not take back VS Code.
        ['editor', 'Vim', 'retract'],
      ]);
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('"我可以用青霉素" (after an allergy to it)');
    });

    it('given a denial in any case, on a constraint or a liking, then its value is "none", what the resolver reads', async () => {
      stub.reset(() =>
        answer([
          modelItem({ kind: 'profile', attribute: 'allergy:Penicillin', value: 'None', corrects: true }),
          modelItem({ kind: 'preference', attribute: 'preference:香菜', value: ' NONE ', corrects: true }),
          modelItem({ kind: 'fact', attribute: 'database', value: 'None' }),
        ]),
      );
      expect((await read('x')).map((i) => [i.attribute, i.value, i.operation])).toEqual([
        ['allergy:penicillin', 'none', 'assert'],
        ['preference:香菜', 'none', 'assert'],
        // A plain attribute's value is the user's word, whatever it is.
        ['database', 'None', 'assert'],
      ]);
      expect(EXTRACTION_SYSTEM_PROMPT).toContain('the value "none"');
    });
  });
});
