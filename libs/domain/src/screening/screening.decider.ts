import { causedBy, deterministicId, newEvent, type TurnRecorded, type TurnRole, type TurnScreened } from '@engram/contracts';
import { hasCue } from '../text/cue-matching';
import { type Decider, type NoState, noState, unchanged } from '../decider';
import { maskPii } from '../privacy/pii-masking';
import { ASSISTANT_SIGNALS, SIGNALS, type CueSignal, type ScreeningConfig, type Signal } from './screening.config';

/**
 * The filter's decision for one turn. Every turn that says anything is `accepted`: it is kept,
 * masked, as an episode, so its words can always be found again. Signals decide what more happens:
 * a turn with signals goes to the extraction strategy (rules or a model), one without is kept as
 * an episode only (reason `episode`). Only content-free turns — acknowledgements, greetings, emoji
 * ("嗯嗯", "ok thanks") — and system or tool turns without a signal are `rejected`.
 */
export interface ScreeningResult {
  readonly verdict: 'accepted' | 'rejected';
  readonly reasons: string[];
  readonly signals: Signal[];
  readonly ephemeral: boolean;
  readonly masked: string[];
  /** The turn's text with PII masked. */
  readonly text: string;
}

export function screenTurn(turn: { role: TurnRole; text: string; previousText?: string }, config: ScreeningConfig): ScreeningResult {
  const { text, masked } = maskPii(turn.text);
  const signals = signalsOf(text, turn.role, config);
  const ephemeral = isOneOff(text, turn.role, turn.previousText, config);
  const result = (verdict: ScreeningResult['verdict'], reasons: string[]): ScreeningResult => ({
    verdict,
    reasons,
    signals,
    ephemeral,
    masked,
    text,
  });

  if (signals.length > 0 && !isChitChat(text, config)) {
    return result(
      'accepted',
      signals.map((s) => `signal:${s}`),
    );
  }
  if (turn.role === 'system' || turn.role === 'tool') return result('rejected', [`role:${turn.role}`]);
  if (isChitChat(text, config) || contentLength(text) === 0) return result('rejected', ['chit-chat']);
  return result('accepted', ['episode']);
}

/**
 * A one-off request (kept, marked ephemeral, expired after the TTL): a request that is one-off by
 * itself, or a question about something stale tomorrow. A statement that names such a thing ("we
 * went to a nearby festival", "the weather was awesome on our trip") is not one: it is kept like any
 * other. An assistant's turn is one-off when the turn it answers is ("I can't check live weather…"
 * after "what's the weather today?"), and not when it recommends "the hotel near the river" after a
 * question about hotels; when the turn it answers is unknown, when it names such a thing.
 */
function isOneOff(text: string, role: TurnRole, previousText: string | undefined, config: ScreeningConfig): boolean {
  if (hasCue(text, config.ephemeralRequests)) return true;
  if (role === 'assistant')
    return previousText !== undefined ? isOneOff(previousText, 'user', undefined, config) : hasCue(text, config.ephemeralCues);
  return sentencesOf(text).some((sentence) => hasCue(sentence, config.ephemeralCues) && isQuestion(sentence, config));
}

/** Sentences, each with its closing mark ("跑了，配速 6 分 10 秒。" | "今天天气适合户外跑吗？"). */
function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[。！？!?；;\n]|\.(?=\s|$))/u)
    .map((s) => s.trim())
    .filter(Boolean);
}

function isQuestion(sentence: string, config: Pick<ScreeningConfig, 'questionLeads'>): boolean {
  if (/[?？]["'”’)）]*$/u.test(sentence) || /[吗呢么][。.!！]?$/u.test(sentence)) return true;
  const first = /^[\p{L}']+/u.exec(sentence.normalize('NFKC').toLowerCase().replace(/[’‘]/g, "'"))?.[0];
  return first !== undefined && config.questionLeads.includes(first);
}

function signalsOf(text: string, role: TurnRole, config: ScreeningConfig): Signal[] {
  const relevant = role === 'assistant' ? ASSISTANT_SIGNALS : SIGNALS;
  const cued = relevant.filter((signal): signal is CueSignal => signal !== 'detail' && hasCue(text, config.cues[signal]));
  if (cued.length > 0 || !relevant.includes('detail') || role === 'system' || role === 'tool') return cued;
  // No cue word: specific content still makes the turn worth keeping, unless the assistant is only
  // repeating what the user said.
  const echo = role === 'assistant' && hasCue(text, config.assistantEchoCues);
  return !echo && hasDetail(text, config) ? ['detail'] : [];
}

const detailCache = new WeakMap<readonly string[], RegExp[]>();

/** A number, a date word, a name or a code: specific information, whatever the wording around it. */
export function hasDetail(text: string, config: Pick<ScreeningConfig, 'detailPatterns'>): boolean {
  let patterns = detailCache.get(config.detailPatterns);
  if (!patterns) {
    patterns = config.detailPatterns.map((source) => new RegExp(source, 'u'));
    detailCache.set(config.detailPatterns, patterns);
  }
  return patterns.some((re) => re.test(text));
}

/** Letters and digits only: punctuation and emoji do not make a turn substantial. */
function contentLength(text: string): number {
  return (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
}

/**
 * A turn made only of acknowledgements ("好的好的，谢谢！", "ok thanks"), emoji or punctuation.
 * Pieces are matched greedily against the list so run-together replies ("嗯嗯好的") count too.
 */
export function isChitChat(text: string, config: Pick<ScreeningConfig, 'chitChat'>): boolean {
  const normalised = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s']/gu, ' ')
    .trim();
  if (normalised.length === 0) return true;
  const phrases = chitChatPhrases(config.chitChat);
  let rest = normalised;
  while (rest.length > 0) {
    const phrase = phrases.find((p) => rest.startsWith(p) && isPieceBoundary(rest, p.length));
    if (!phrase) return false;
    rest = rest.slice(phrase.length).trimStart();
  }
  return true;
}

const phrasesCache = new WeakMap<readonly string[], readonly string[]>();

/** The list in lower case, longest first: sorted once per list, not on every turn (it was a third of screening's time). */
function chitChatPhrases(chitChat: readonly string[]): readonly string[] {
  let phrases = phrasesCache.get(chitChat);
  if (!phrases) {
    phrases = [...new Set(chitChat.map((c) => c.toLowerCase()))].sort((a, b) => b.length - a.length);
    phrasesCache.set(chitChat, phrases);
  }
  return phrases;
}

/** "ok" must not eat the start of "okinawa"; Chinese pieces need no boundary. */
function isPieceBoundary(text: string, at: number): boolean {
  const prev = text[at - 1] ?? '';
  const next = text[at] ?? '';
  return !(/[a-z0-9]/.test(prev) && /[a-z0-9]/.test(next));
}

/** What screening is given besides the turn: the cues (one version of them) and when it decides. */
export interface ScreeningOptions {
  readonly config: ScreeningConfig;
  readonly recordedAt: string;
}

/**
 * The filter's decider: one `TurnScreened` per `TurnRecorded`, whatever the verdict (`screenTurn`).
 * Each turn is screened alone: no state.
 */
export const ScreeningDecider = {
  initialState: noState,
  decide(event: TurnRecorded, _state: NoState, { config, recordedAt }: ScreeningOptions): TurnScreened[] {
    const screened = screenTurn(event.payload, config);
    return [
      newEvent<TurnScreened>({
        ...causedBy(event),
        eventId: deterministicId('screened', event.eventId, config.version),
        type: 'TurnScreened',
        occurredAt: event.occurredAt,
        recordedAt,
        payload: {
          ...event.payload,
          text: screened.text,
          verdict: screened.verdict,
          reasons: screened.reasons,
          signals: screened.signals,
          ephemeral: screened.ephemeral,
          masked: screened.masked,
          screenerVersion: config.version,
        },
      }),
    ];
  },
  evolve: unchanged,
} as const satisfies Decider<TurnRecorded, NoState, TurnScreened, ScreeningOptions>;
