/**
 * A user's memories in three tables (pinned facts, procedures, the rest), narrowed by kind and
 * status; opening one shows its version history as a timeline.
 */
import { api } from './api.js';
import { arrowKeys, focusItem, h, instant, notice, number, replace } from './dom.js';
import { MEMORY_KINDS, type MemoryKind, type MemoryRecord, type MemoryVersion, type RecentTurn } from './types.js';

/** The source turns the timeline fetches at once (the endpoint's limit). */
const TURNS_PER_CALL = 100;

type Status = 'active' | 'all';

export class MemoriesView {
  private userId: string | null = null;
  private memories: MemoryRecord[] = [];
  private readonly kinds = new Set<MemoryKind>();
  private status: Status = 'active';
  private openId: string | null = null;
  private readonly tables = h('div', { class: 'tables' });
  private readonly timeline = h('aside', { class: 'timeline-pane', 'aria-label': 'Version history', 'aria-live': 'polite' });
  private readonly filters = h('div', { class: 'filters' });

  constructor(private readonly panel: HTMLElement) {
    replace(panel, notice('Pick a user on the left (or press / and type a name).'));
  }

  async show(userId: string): Promise<void> {
    this.userId = userId;
    this.openId = null;
    replace(this.panel, notice(`Loading ${userId}'s memories…`));
    await this.reload();
  }

  private async reload(): Promise<void> {
    if (!this.userId) return;
    try {
      this.memories = (await api.memories(this.userId, this.status)).memories;
    } catch (error) {
      replace(this.panel, notice(`Could not load memories: ${(error as Error).message}`, 'error'));
      return;
    }
    replace(this.panel, this.filters, h('div', { class: 'split' }, this.tables, this.timeline));
    this.renderFilters();
    this.renderTables();
    this.renderTimeline();
  }

  private renderFilters(): void {
    const counts = new Map<MemoryKind, number>();
    for (const memory of this.memories) counts.set(memory.kind, (counts.get(memory.kind) ?? 0) + 1);
    const chip = (kind: MemoryKind) =>
      h(
        'label',
        { class: 'chip' },
        h('input', {
          type: 'checkbox',
          name: 'kind',
          value: kind,
          checked: this.kinds.has(kind),
          onchange: (event: Event) => {
            const box = event.target as HTMLInputElement;
            if (box.checked) this.kinds.add(kind);
            else this.kinds.delete(kind);
            this.renderTables();
          },
        }),
        ` ${kind} `,
        h('span', { class: 'count' }, counts.get(kind) ?? 0),
      );
    replace(
      this.filters,
      h(
        'fieldset',
        { class: 'kinds' },
        h('legend', {}, 'Kinds (none checked: all)'),
        MEMORY_KINDS.filter((kind) => counts.has(kind) || this.kinds.has(kind)).map(chip),
      ),
      h(
        'label',
        { class: 'status-filter' },
        'Status ',
        h(
          'select',
          {
            name: 'status',
            onchange: (event: Event) => {
              this.status = (event.target as HTMLSelectElement).value as Status;
              void this.reload();
            },
          },
          h('option', { value: 'active', selected: this.status === 'active' }, 'active'),
          h('option', { value: 'all', selected: this.status === 'all' }, 'every status'),
        ),
      ),
    );
  }

  private renderTables(): void {
    const shown = this.memories.filter((memory) => this.kinds.size === 0 || this.kinds.has(memory.kind));
    const facts = shown.filter((m) => m.pinned && m.kind !== 'procedure');
    const procedures = shown.filter((m) => m.kind === 'procedure');
    const rest = shown.filter((m) => !m.pinned && m.kind !== 'procedure');
    replace(
      this.tables,
      this.table('facts', 'Facts (pinned)', facts),
      this.table('procedures', 'Procedures', procedures),
      this.table('memories', 'Memories', rest),
    );
  }

  private table(id: string, title: string, memories: MemoryRecord[]): HTMLElement {
    const heading = h('h3', { id: `${id}-title` }, `${title} `, h('span', { class: 'count' }, memories.length));
    if (memories.length === 0)
      return h('section', { class: 'block', 'aria-labelledby': `${id}-title` }, heading, h('p', { class: 'empty' }, 'None.'));
    const body = h(
      'tbody',
      {},
      memories.map((memory) =>
        h(
          'tr',
          {
            tabindex: '-1',
            'data-memory': memory.memoryId,
            'aria-selected': String(memory.memoryId === this.openId),
            'aria-label': `${memory.kind}: ${memory.content}. Enter shows its history.`,
            onclick: () => this.open(memory.memoryId),
            onkeydown: (event: Event) => {
              if (!(event instanceof KeyboardEvent)) return;
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault();
                this.open(memory.memoryId);
              }
            },
          },
          h('td', {}, h('span', { class: `kind kind-${memory.kind}` }, memory.kind)),
          h('td', { class: 'content' }, memory.content),
          h('td', {}, memory.attribute, h('br'), h('strong', {}, memory.value)),
          h('td', {}, h('span', { class: `status status-${memory.status}` }, memory.status)),
          h('td', { class: 'num' }, memory.version),
          h('td', { class: 'when' }, instant(memory.updatedAt)),
        ),
      ),
    );
    const rows = [...body.querySelectorAll<HTMLElement>('tr')];
    focusItem(rows, 0, false);
    arrowKeys(body, 'tr');
    return h(
      'section',
      { class: 'block', 'aria-labelledby': `${id}-title` },
      heading,
      h(
        'table',
        { 'aria-labelledby': `${id}-title` },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Kind', 'Content', 'Attribute / value', 'Status', 'v', 'Updated'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        body,
      ),
    );
  }

  private open(memoryId: string): void {
    this.openId = memoryId;
    for (const row of this.tables.querySelectorAll<HTMLElement>('tr[data-memory]'))
      row.setAttribute('aria-selected', String(row.dataset.memory === memoryId));
    this.renderTimeline();
  }

  private renderTimeline(): void {
    const memory = this.memories.find((m) => m.memoryId === this.openId);
    if (!memory) {
      replace(this.timeline, h('h3', {}, 'History'), h('p', { class: 'empty' }, 'Open a memory (Enter or click) to see its versions.'));
      return;
    }
    this.drawTimeline(memory, new Map());
    // Then the words of the turns each version was said in.
    const ids = [...new Set([...memory.history.flatMap((v) => v.sourceTurnIds), ...memory.sourceTurnIds])].slice(0, TURNS_PER_CALL);
    if (!this.userId || ids.length === 0) return;
    api.turns(this.userId, ids).then(
      ({ turns }) => {
        if (this.openId === memory.memoryId) this.drawTimeline(memory, new Map(turns.map((t) => [t.turnId, t])));
      },
      () => undefined, // the ids stay shown
    );
  }

  private drawTimeline(memory: MemoryRecord, turns: ReadonlyMap<string, RecentTurn>): void {
    replace(
      this.timeline,
      h('h3', { id: 'timeline-title' }, `History of ${memory.subject}/${memory.attribute}`),
      h(
        'p',
        { class: 'meta' },
        `${memory.kind} · confidence ${number(memory.confidence, 2)} · importance ${number(memory.importance, 2)} · said ${memory.mentionCount}×`,
      ),
      h(
        'ol',
        { class: 'timeline', 'aria-labelledby': 'timeline-title' },
        versionsOf(memory).map((entry) => timelineEntry(entry, turns)),
      ),
    );
  }
}

interface TimelineEntry {
  readonly version: MemoryVersion;
  readonly current: boolean;
  /** What ended this version: the next version's value and turns, or the memory's status. */
  readonly decision: string;
}

/** Oldest first: each past version, then the current one, each with the decision that changed it. */
function versionsOf(memory: MemoryRecord): TimelineEntry[] {
  const current: MemoryVersion = {
    version: memory.version,
    value: memory.value,
    content: memory.content,
    validFrom: memory.validFrom,
    validTo: memory.validTo,
    recordedAt: memory.history.at(-1)?.supersededAt ?? memory.createdAt,
    supersededAt: null,
    sourceTurnIds: memory.sourceTurnIds,
  };
  const all = [...memory.history, current];
  return all.map((version, i) => {
    const next = all[i + 1];
    const decision = next
      ? `Superseded by v${next.version} “${next.value}” (turn ${next.sourceTurnIds.join(', ')})`
      : memory.status === 'active'
        ? 'Current value'
        : `${memory.status[0].toUpperCase()}${memory.status.slice(1)}${memory.statusReason ? `: ${memory.statusReason}` : ''}`;
    return { version, current: !next, decision };
  });
}

function timelineEntry({ version, current, decision }: TimelineEntry, turns: ReadonlyMap<string, RecentTurn>): HTMLElement {
  return h(
    'li',
    { class: current ? 'current' : 'past' },
    h('div', { class: 'version' }, `v${version.version}`),
    h(
      'div',
      { class: 'entry' },
      h('p', { class: 'value' }, version.value),
      h('p', { class: 'content' }, version.content),
      h(
        'dl',
        {},
        h('dt', {}, 'Valid'),
        h('dd', {}, `${instant(version.validFrom)} → ${version.validTo ? instant(version.validTo) : 'now'}`),
        h('dt', {}, 'Learned'),
        h('dd', {}, instant(version.recordedAt)),
        version.supersededAt ? [h('dt', {}, 'Replaced'), h('dd', {}, instant(version.supersededAt))] : null,
      ),
      h(
        'ul',
        { class: 'source-turns', 'aria-label': `Source turns of version ${version.version}` },
        version.sourceTurnIds.map((id) => {
          const turn = turns.get(id);
          return h(
            'li',
            {},
            h(
              'span',
              { class: 'when' },
              h('code', {}, id),
              turn ? ` · ${turn.speaker ?? turn.role} · ${turn.sessionId} · ${instant(turn.occurredAt)}` : '',
            ),
            turn ? h('q', {}, turn.text) : null,
          );
        }),
      ),
      h('p', { class: 'decision' }, decision),
    ),
  );
}
