import type { MemoryRecord, TurnRole } from '@engram/contracts';
import type { RankedMemory } from './ranking';
import { countTokens } from './tokenizer';

/**
 * The context block recall hands to the LLM: pinned facts, then ranked memories, then the recent
 * window, within a token budget. Facts get room first (they are few and always relevant), then
 * memories by rank, then recent turns newest-first (the newest matter most; kept contiguous).
 */
export interface RecentTurn {
  readonly role: TurnRole;
  readonly text: string;
  readonly occurredAt: string;
}

export interface ContextInput<TTurn extends RecentTurn = RecentTurn> {
  readonly facts: readonly MemoryRecord[];
  readonly memories: readonly RankedMemory[];
  readonly recent: readonly TTurn[];
  readonly tokenBudget: number;
  readonly now: Date;
}

export interface AssembledContext<TTurn extends RecentTurn = RecentTurn> {
  /** Empty when nothing fits (or nothing is known). */
  readonly context: string;
  readonly facts: MemoryRecord[];
  readonly memories: RankedMemory[];
  /** Oldest first, as they happened. */
  readonly recent: TTurn[];
  readonly tokensUsed: number;
}

export const CONTEXT_PREAMBLE =
  'Reference material from long-term memory about the user. It may be outdated: the current conversation overrides it.';

const SECTION_TAGS = { facts: 'facts', memories: 'memories', recent: 'recent' } as const;
type Section = keyof typeof SECTION_TAGS;

export function assembleContext<TTurn extends RecentTurn>(input: ContextInput<TTurn>): AssembledContext<TTurn> {
  const budget = new TokenBudget(input.tokenBudget, countTokens(CONTEXT_PREAMBLE) + 1);
  const facts = input.facts.filter((fact) => budget.take('facts', factLine(fact)));
  const pinnedIds = new Set(facts.map((f) => f.memoryId));
  const memories = input.memories
    .filter((m) => !pinnedIds.has(m.memory.memoryId)) // a pinned fact found by search is already there
    .filter((m) => budget.take('memories', memoryLine(m.memory)));
  const recent: TTurn[] = [];
  for (const turn of [...input.recent].sort(byTimeDesc)) {
    if (!budget.take('recent', turnLine(turn))) break;
    recent.unshift(turn);
  }
  return fitExactly({ facts, memories, recent }, input.tokenBudget);
}

/**
 * Per-line counts are a close estimate of the whole; BPE may merge differently across lines, so
 * the rendered block is measured and, if it is still over, trimmed from the lowest priority end.
 */
function fitExactly<TTurn extends RecentTurn>(
  parts: { facts: MemoryRecord[]; memories: RankedMemory[]; recent: TTurn[] },
  limit: number,
): AssembledContext<TTurn> {
  for (;;) {
    const context = render(parts.facts, parts.memories, parts.recent);
    const tokensUsed = countTokens(context);
    if (tokensUsed <= limit) return { context, ...parts, tokensUsed };
    if (parts.recent.length > 0) parts.recent.shift();
    else if (parts.memories.length > 0) parts.memories.pop();
    else parts.facts.pop();
  }
}

function render(facts: readonly MemoryRecord[], memories: readonly RankedMemory[], recent: readonly RecentTurn[]): string {
  const sections = [
    section('facts', facts.map(factLine)),
    section('memories', memories.map((m) => memoryLine(m.memory))),
    section('recent', recent.map(turnLine)),
  ].filter((s): s is string => s !== null);
  return sections.length === 0 ? '' : [CONTEXT_PREAMBLE, ...sections].join('\n');
}

function section(name: Section, lines: readonly string[]): string | null {
  if (lines.length === 0) return null;
  return [`<${SECTION_TAGS[name]}>`, ...lines, `</${SECTION_TAGS[name]}>`].join('\n');
}

function factLine(fact: MemoryRecord): string {
  return `- ${fact.content}`;
}

function memoryLine(memory: MemoryRecord): string {
  return `- [${memory.validFrom.slice(0, 10)}] ${memory.content}`;
}

function turnLine(turn: RecentTurn): string {
  return `${turn.role}: ${turn.text}`;
}

function byTimeDesc(a: RecentTurn, b: RecentTurn): number {
  return Date.parse(b.occurredAt) - Date.parse(a.occurredAt);
}

/** Counts lines as they are added, including the preamble and a section's tags when its first line arrives. */
class TokenBudget {
  private used = 0;
  private readonly opened = new Set<Section>();

  constructor(
    private readonly limit: number,
    private readonly preamble: number,
  ) {}

  take(section: Section, line: string): boolean {
    const open = this.opened.has(section) ? 0 : countTokens(`<${section}>\n</${section}>\n`);
    const first = this.used === 0 ? this.preamble : 0;
    const cost = countTokens(line) + 1 + open + first;
    if (this.used + cost > this.limit) return false;
    this.used += cost;
    this.opened.add(section);
    return true;
  }
}
