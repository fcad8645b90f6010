import type { CueSignal } from '../screening/screening-signals';
import type { ConstraintCues } from './constraint-cues';

/**
 * A language pack: everything one language contributes to the rule extractor and to screening, as
 * data, one section per rule family. The rules (`rules/*.rules.ts`) know only the shapes of sentences
 * ("<cue> <object>", "<attribute> 用 <value>"); the words, and the patterns that are one language's
 * own, come from here. The packs are merged into one configuration (`mergePacks`): lists are joined
 * in pack order, so a rule sees the cues of every language at once. Cues match as `cue-matching.ts`
 * says: Latin cues on word boundaries, case-insensitively; Chinese cues as substrings.
 *
 * Fields documented as "regex sources" are alternatives a rule puts into one pattern of its own
 * shape (`alternation` in `patterns.ts`); fields holding `RegExp`s are a language's whole sentence
 * frames, tried in pack order. Adding a cue is a one-line change in a pack; if a rule's trigger is not also a screening cue of
 * the same pack, screening drops the turn before the rule sees it (`rules.screening.unit.spec.ts`).
 */
export interface LanguagePack extends RuleCues {
  readonly language: string;
  readonly screening: ScreeningCues;
  readonly scopes: ScopeCues;
}

/**
 * Time scopes a statement sets for itself ("今天很忙", "I'm in Berlin this week", "这次先用蓝色的模板"):
 * it holds until the scope ends (`extraction/time-scope.ts`). Each list's cues set one scope.
 */
export interface ScopeCues {
  /** The rest of a day: "今天", "tonight", "right now". */
  readonly day: readonly string[];
  /** A few days: "这两天", "for a few days". */
  readonly days: readonly string[];
  /** A week: "这周", "this week". */
  readonly week: readonly string[];
  /** A trip or a stay: "这次出差", "for this trip". */
  readonly trip: readonly string[];
  /** One task: "这次", "this time", "for this task": the working-memory window. */
  readonly task: readonly string[];
  /** Regex sources of a statement about what happened, not a state that holds ("了", "went"): it sets no scope. */
  readonly past: readonly string[];
}

/** The rule families' sections of a pack: what `RuleExtractorConfig` holds, merged over the packs. */
export interface RuleCues {
  readonly clauses: ClauseCues;
  readonly words: WordCues;
  readonly identity: IdentityCues;
  readonly corrections: CorrectionCues;
  readonly plans: PlanCues;
  readonly preferences: PreferenceCues;
  readonly procedures: ProcedureCues;
  readonly assistant: AssistantCues;
  readonly facts: FactCues;
  readonly constraints: ConstraintCues;
}

/** How a turn is read before any rule: clause leads, questions, requests. */
export interface ClauseCues {
  /** Leading words that carry nothing ("然后", "by the way"). */
  readonly connectors: readonly string[];
  /** "记住…", "remember that…": said on purpose, so more confident and more important. */
  readonly remember: readonly string[];
  /** What may come before a "remember" cue ("这条必须永远记住：…", "always remember that …"). */
  readonly rememberPreamble: readonly string[];
  /** "永远", "绝对", "以后都", "always", "never forget": said with emphasis, so as important as "记住". */
  readonly emphasis: readonly string[];
  /** "其实我也喜欢 Python": an addition, not a correction of what was said before. */
  readonly additive: readonly string[];
  readonly question: readonly string[];
  readonly questionEndings: readonly string[];
  readonly request: readonly string[];
  /** "Dr. Alvarez", "Mt. Bachelor": a full stop after these does not end a clause. */
  readonly abbreviations: readonly string[];
  /** Regex sources: conjunctions that end a clause before a new subject ("… and I live in Berlin"). */
  readonly clauseJoins: readonly string[];
  /** Regex sources: the subjects that may follow such a conjunction. */
  readonly newSubjects: readonly string[];
  /** "不是三万，是五万", "not 30k, it's 50k": a piece with `not` followed by one with `but` is one clause. */
  readonly notButIs: readonly { readonly not: RegExp; readonly but: RegExp }[];
  /** A piece that continues the one before (one clause): "my new address, 48 Elm Road", "一只金毛，叫旺财", "…, from now on". */
  readonly continues: readonly RegExp[];
  /** A clause about someone unnamed ("他不吃香菜", "she usually drinks tea"): nothing in it is the user's. */
  readonly othersLead: readonly RegExp[];
}

/** Words several families share: attribute names, copulas, what comes off a value's edges. */
export interface WordCues {
  /** Attribute slug → words that name it (数据库 / database → `database`); joined, a search key of the fact. */
  readonly attributes: Readonly<Record<string, readonly string[]>>;
  readonly copulas: readonly string[];
  /** The copulas that say what something uses ("用", "uses"): they never introduce an identity attribute's value. */
  readonly useCopulas: readonly string[];
  /** Between an attribute and its copula ("现在的岗位是…", "my position now is …"). */
  readonly nowAdverbs: readonly string[];
  /** Words that make a statement about the present ("我最近在学Rust", "I've been learning Rust lately"): a newer one in the same words replaces it. */
  readonly lately: readonly string[];
  /** Verbs, adverbs and articles stripped from the front of an object ("用 VS Code" → "VS Code"). */
  readonly leadingFillers: readonly string[];
  /** Words stripped from the end of a value ("五万了" → "五万", "三万以内" → "三万"). */
  readonly trailingParticles: readonly string[];
  /** Sentence-initial words that look like proper nouns but are not. */
  readonly notEntities: readonly string[];
  /** Regex sources: the speaker as subject ("我", "we"), taken off the front of a phrase. */
  readonly firstPerson: readonly string[];
  /** Regex sources: what makes a noun possessive ("的", "'s"). */
  readonly genitives: readonly string[];
  /** Regex sources: what may join the products a verb takes ("用 NestJS 和 MongoDB", "Kafka and Redis"). */
  readonly productJoins: readonly string[];
}

/** Who the user is: name, work, places, allergies, the people they talk about. */
export interface IdentityCues {
  readonly name: readonly string[];
  readonly employer: readonly string[];
  readonly location: readonly string[];
  /**
   * Where the user is for now, not where they live ("I'm in Berlin this week for a conference"):
   * `current_location`, only when what follows has `presenceShape` (a proper name, not "a meeting");
   * a stated scope ("this week") makes it expire.
   */
  readonly presence: readonly string[];
  readonly presenceShape: readonly RegExp[];
  readonly hometown: readonly string[];
  readonly role: readonly string[];
  readonly roleSuffixes: readonly string[];
  readonly allergy: readonly string[];
  /** "I'm Italian", "我是意大利人": a nationality, not a name. */
  readonly nationalities: readonly string[];
  /** "我在一家外企做财务": the place before 做/当 is an employer when it ends like an organisation. */
  readonly organisationSuffixes: readonly string[];
  /**
   * "我在北京工作", "我在家上班": where one works is not always an employer. A place named by one of
   * these (or ending in `placeSuffixes`: 市, 省, 区, 县) is the user's location; home is neither.
   */
  readonly places: { readonly home: readonly string[]; readonly cities: readonly string[]; readonly placeSuffixes: readonly string[] };
  /** Third parties the user talks about ("我老婆不吃香菜" → subject `wife`). */
  readonly relations: Readonly<Record<string, readonly string[]>>;
  /** How a relation is named: whose names these are, and what a clause naming one opens with ("我…", "my …"). */
  readonly relationForms: readonly RelationForm[];
  /** Regex sources: the possessive before a relation's name ("我的", "my"). */
  readonly relationOwners: readonly string[];
  /** What gives a relation's name after it ("我女儿叫小美", "my daughter is called Lily"). */
  readonly namedAs: readonly string[];
  /** "We adopted a kitten named Miso", "我养了一只金毛，叫旺财": groups `kind` and `name` (`family:<kind>`). */
  readonly namedCompanions: readonly RegExp[];
  /** "Jess's birthday is …": a named person's possessive, whose group 1 is the name. */
  readonly namedPossessive: readonly RegExp[];
  /** "对花生过敏": group 1 is the allergen. */
  readonly allergyFrames: readonly RegExp[];
  /** "我是老周": a bare name said without a name cue (group 1), unless `notBareNames` matches it. */
  readonly bareNames: readonly RegExp[];
  readonly notBareNames: readonly RegExp[];
  /** "I'm Alex", "I'm Italian": one capitalised word (group 1), a nationality if known, else a name. */
  readonly bareWords: readonly RegExp[];
  /** "我是意大利人": group 1 is a nationality if known. */
  readonly nationalityFrames: readonly RegExp[];
  /** The shape of a name right after a name cue (group 1): a short Han run, capitalised words. */
  readonly nameShapes: readonly RegExp[];
  /** "我在字节跳动工作": group 1 is where the user works (an employer, or a place). */
  readonly workplaceFrames: readonly RegExp[];
  /** A workplace frame's verb that also says the role ("在一家设计公司实习": an intern), group `verb` of the frame. */
  readonly workplaceRoles: Readonly<Record<string, string>>;
  /** "我在一家外企做财务": groups `org` and `role`. */
  readonly worksAsFrames: readonly RegExp[];
  /** Regex sources: what ends an employer's name after an employer cue (" as ", " in "). */
  readonly employerEnds: readonly string[];
  /** "I joined Stripe as a backend engineer": group 1 is the role. */
  readonly employerRole: readonly RegExp[];
  /** Cues that state a role when they open the clause ("我是…"). */
  readonly roleOpeners: readonly string[];
  /** Regex sources: articles before a role ("一名", "an"). */
  readonly roleArticles: readonly string[];
  /** Regex sources: what joins a role to its employer ("在", " at "). */
  readonly roleEmployerJoins: readonly string[];
  /** Regex sources: what ends a place after a location cue (" and ", " since "). */
  readonly placeEnds: readonly string[];
  /** How an organisation's name starts ("Stripe", "3M", "字节跳动"); "a gym" is not one. */
  readonly organisationNames: readonly RegExp[];
}

/** Retractions, corrections and forget requests. */
export interface CorrectionCues {
  readonly retract: readonly string[];
  /** Retractions that point at whatever was said last ("that's no longer true"). */
  readonly retractAnaphora: readonly string[];
  /** "actually …", "其实 …": what follows is a corrected statement. */
  readonly correctionLead: readonly string[];
  /**
   * Correction leads that are as often conversation ("sorry to hear that", "wait, really?", "I mean
   * …"): they make the clause more certain but do not let it land on another memory.
   */
  readonly weakCorrectionLead: readonly string[];
  /** Said last, what makes the clause a change of what was said before ("I drive to work instead"). */
  readonly correctionTail: readonly string[];
  /** Leads that make a correction only as a piece of their own ("no, make it 10", "不对，改成9点"): "no sugar please" is not one. */
  readonly correctionAlone: readonly string[];
  /** "<attribute> 改成 <value>": verbs that put a new value on an attribute. */
  readonly changeVerbs: readonly string[];
  /**
   * Change verbs that may open a clause as a correction of what was just said ("改成9点", "make it
   * 10"); "now I have a drive for backups" is no correction, though "is now" after an attribute is.
   */
  readonly openChangeVerbs: readonly string[];
  /** Words a phrase naming an attribute never holds ("the tank is big enough now…" names none). */
  readonly notInAttribute: readonly string[];
  /** "set <attribute> to <value>": verbs that open an assignment closed by "to". */
  readonly assignLeads: readonly string[];
  /**
   * Words that make a sentence about money: only then is a bare amount a budget ("改成五千块",
   * "make it $500"); "改成世纪大道100号" and "changed to room 301" are not.
   */
  readonly money: readonly string[];
  /** Forget requests whose object the other rules can read ("忘掉我之前说的喜欢吃榴莲" → the preference). */
  readonly forget: readonly string[];
  /** "不看恐怖片了", "I don't watch horror movies anymore": a taste given up (not food: "不吃香菜了" is a constraint), group `what`, read as `likeLead` + what. */
  readonly noLonger: readonly RegExp[];
  readonly likeLead: string;
  /** What may come before a forget request's verb ("请忘掉…", "please forget…"); anything else ("I'll never forget…") is not one. */
  readonly forgetAsk: readonly string[];
  /** Words around a forget request's object ("我之前说的", "这件事", "what I said about"). */
  readonly forgetFillers: readonly string[];
  /** Leading words of a correction's bare new value ("我要低卡方案" → "低卡方案"). */
  readonly openValueFillers: readonly string[];
  /** Forget fillers that may also follow the object ("忘掉喜欢吃榴莲这件事"). */
  readonly forgetFillersAfter: readonly string[];
  /** "不是三万，是五万", "not 30k but 50k": groups `pre` (what is corrected), `old` and `neu`, tried in order. */
  readonly notXButY: readonly RegExp[];
  /** Regex sources: what closes an assignment's attribute ("set the standup to 9am"). */
  readonly assignTo: readonly string[];
  /** Copulas that come off a corrected value ("my position now is …" → "…"). */
  readonly valueCopulas: readonly string[];
  /** Regex sources: what comes off a phrase naming what changes ("把", "我的", "my", "the"). */
  readonly phraseLeads: readonly string[];
  /** Shapes of a phrase that may name an attribute ("收货地址", "meeting room"). */
  readonly attributePhrases: readonly RegExp[];
  /** Regex sources: words that never name an attribute by themselves ("it", "that"). */
  readonly pronouns: readonly string[];
  /** Regex sources: articles that come off an open correction's value ("a low-calorie plan"). */
  readonly valueArticles: readonly string[];
  /** Regex sources: what comes before a bare corrected value ("it's 50k", "应该是五万"). */
  readonly bareValueLeads: readonly string[];
}

/** Decisions, tasks, deadlines and what is being bought. */
export interface PlanCues {
  readonly decision: readonly string[];
  /** Regex sources: a decision's object that only points at a proposal ("这个方案来", "that plan"): `acceptedProposal`. */
  readonly acceptance: readonly string[];
  readonly task: readonly string[];
  readonly deadline: readonly string[];
  /**
   * "买个空气净化器，预算三千": what a budget in the same turn is for. The budget's attribute becomes
   * `budget:<thing>`, so a gift's budget and a purifier's are two memories, not one superseding the other.
   */
  readonly purchase: readonly string[];
  /** Regex sources: what ends the thing being bought (" for ", "预算"), besides punctuation. */
  readonly purchaseEnds: readonly string[];
  /** Regex sources: measure words and articles before it ("一台", "a new"). */
  readonly purchaseArticles: readonly string[];
  /** Regex sources: particles after it ("吧"). */
  readonly purchaseParticles: readonly string[];
  /** Regex sources: what comes off the front of a deadline's scope ("the", "我们的"). */
  readonly deadlineScopeLeads: readonly string[];
  /** Regex sources: scopes that name nothing in particular ("项目", "project"): the deadline is `deadline`. */
  readonly genericScopes: readonly string[];
  /** Regex sources: "before" said after a date ("下周三之前"). */
  readonly dueAfterDate: readonly string[];
  /** Regex sources: "by" said before a date ("by Friday"). */
  readonly dueBeforeDate: readonly string[];
  /** Regex sources: modal verbs that come off a dated task ("要", "have to"). */
  readonly dueVerbs: readonly string[];
  /** Words that come off the end of a scheduled event's name ("on", "在"). */
  readonly scheduleTrailers: readonly string[];
}

export interface PreferenceCues {
  readonly like: readonly string[];
  readonly dislike: readonly string[];
  readonly habit: readonly string[];
  /** Regex sources: like cues that name a favourite ("my favorite", "最喜欢的"): "<what> is <value>". */
  readonly favourite: readonly string[];
  /** Regex sources: the copula between a favourite and its value. */
  readonly favouriteCopulas: readonly string[];
  /**
   * The favourite said the other way round ("乌龙茶是我最爱的茶", "Neovim is my editor of choice",
   * "美式咖啡是我的最爱"): group `value` is what is liked, `what` (may be empty) what kind of thing it is.
   */
  readonly favouriteFirst: readonly RegExp[];
  /** A habit said by how often or how long, group `object`: "I go hiking most weekends", "早上跑步是我多年的习惯". */
  readonly habitFrames: readonly RegExp[];
  /** What a habit is found by besides its own words ("我有什么爱好", "what are my hobbies"): its search keys. */
  readonly habitKeys: readonly string[];
  /** A standing request that is a taste ("以后给我订靠过道的座位吧", "from now on book me aisle seats"), group `object`. */
  readonly standingRequests: readonly RegExp[];
  /** Regex sources: what ends a preference's object ("coffee after 3pm" → "coffee", "比"). */
  readonly objectEnds: readonly string[];
}

/**
 * What makes a clause a rule for how the assistant should act (kind `procedure`): "以后报价先给区间再给明细",
 * "always answer in English", "别用表情包", "代码示例用 TypeScript". See `procedures.rules.ts`.
 */
export interface ProcedureCues {
  /** Words that make an instruction standing ("以后", "每次", "always", "from now on"), anywhere in the clause. */
  readonly standing: readonly string[];
  /**
   * Prohibitions and polite asks ("别用", "不要", "请用", "don't", "please"): an instruction, but as often
   * for this answer as for all of them, so one counts only with a topic ("please explain how Kafka
   * works" is a request, "please never use emojis" a rule).
   */
  readonly asks: readonly string[];
  /**
   * What an instruction asks the assistant to do ("用", "给", "use", "write"): with a directive, one of
   * these or a response word must be there ("每次代码评审都很慢" instructs nothing); opening the clause,
   * one is an imperative of its own ("用中文回答", "use TypeScript for code examples").
   */
  readonly actions: readonly string[];
  /** What the assistant does when it answers ("回答", "reply"): the instruction is about answering. */
  readonly responses: readonly string[];
  /**
   * What a rule is about: topic slug → words naming it. A later rule on the same topic replaces the
   * earlier one (merge key `user/procedure:<topic>`); a rule naming no topic is a memory of its own.
   */
  readonly topics: Readonly<Record<string, readonly string[]>>;
  /** Words right after a topic that make "<topic> …" an instruction ("代码示例用…", "报价先给…", "code examples in…"). */
  readonly topicInstructions: readonly string[];
  /** This answer only, not a standing rule ("这个问题用英文回答", "just this once"). */
  readonly oneOff: readonly string[];
  /** A first-person clause is about the user, unless it addresses the assistant ("我希望你…", "I want you to…"). */
  readonly addressing: readonly string[];
  /** A rule that points back ("keep that in mind when you write snippets", "以后都按这个来"): its content is the whole turn. */
  readonly anaphora: readonly string[];
  /** Regex sources: a clause opening with one is about the speaker ("我…", "I …"), unless it addresses the assistant. */
  readonly selfOpeners: readonly string[];
}

/** What the assistant recommended, promised or concluded. */
export interface AssistantCues {
  readonly recommendation: readonly string[];
  readonly promise: readonly string[];
  readonly conclusion: readonly string[];
  /** Regex sources: the listener, before what is recommended ("你", "you"). */
  readonly addressee: readonly string[];
  /** Regex sources: what ends the recommended thing (a reason: "因为", "because"), besides punctuation and dashes. */
  readonly reasonBreaks: readonly string[];
  /** "…的<head>": group 1 is the head noun of what is recommended. */
  readonly headNoun: readonly RegExp[];
}

/** Statements of fact ("数据库用 PostgreSQL", "we use Redis as a cache"). */
export interface FactCues {
  /** "用 Redis 做缓存", "we use Redis as a cache": groups `value` and `attr`. */
  readonly useAs: readonly RegExp[];
  /** "我的邮箱是…", "our backend is written in Go": groups `attr` and `value`. */
  readonly possessive: readonly RegExp[];
  /** Regex sources: verbs of use after which products are the things used ("用", "we use", "runs on"). */
  readonly useVerbs: readonly string[];
  /** Attributes named by how they are said, group `value`: a car ("换了一辆特斯拉": 辆, a vehicle's classifier), "寄到深圳…". */
  readonly frames: Readonly<Record<string, readonly RegExp[]>>;
}

/** Whose relation names these are: a name matching `names` is tried when the clause matches `opener` (or the name starts with `owner`). */
interface RelationForm {
  readonly names: RegExp;
  readonly opener: RegExp;
  readonly owner?: string;
}

/** A pack's part of `ScreeningConfig` (what each list is for is said there). */
/** What screening listens for in one language (`screening.config.ts` merges the packs'). */
export interface ScreeningCues {
  /** Whole-turn acknowledgements ("嗯嗯", "ok", "thanks!"); a turn made only of these is dropped. */
  readonly chitChat: readonly string[];
  readonly cues: Readonly<Record<CueSignal, readonly string[]>>;
  /**
   * What a one-off request asks about, whose answer is stale tomorrow (weather, opening hours, "nearby"):
   * a user's turn is ephemeral when one of its questions names one ("今天成都下雨吗", "is the Apple store
   * near me open now?"), not when a statement does ("I joined a nearby church"). An assistant's turn
   * is ephemeral when the turn it answers is one (see `screenTurn`).
   */
  readonly ephemeralCues: readonly string[];
  /** Requests that are one-off by themselves, question or not ("帮我查一下…", "translate this"). */
  readonly ephemeralRequests: readonly string[];
  /** First words that make an English sentence a question without its question mark ("what's the traffic like…"). */
  readonly questionLeads: readonly string[];
  /**
   * Shapes of specific information (numbers, dates, names, codes): "她 10 月 18 号生日", "I shoot with
   * a Sony A7 IV" carry no cue word, yet are exactly what is asked later. Regex sources, matched
   * case-sensitively (a capital letter is part of what makes a name). A pack holds its language's own
   * shapes (its numerals, its date words); `screeningCuesOf` adds `\d`, a detail in every language.
   */
  readonly detailPatterns: readonly string[];
  /**
   * The assistant restating the user ("好的，你喜欢用 VS Code，我记下了"): details in such a turn are
   * the user's, already screened on the user's turn, so they do not make the assistant's turn worth keeping.
   */
  readonly assistantEchoCues: readonly string[];
}

export type { ConstraintCues } from './constraint-cues';
