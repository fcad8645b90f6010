/**
 * The recall debugger: a query and recall's options, answered with `debug`: the facts, procedures
 * and memories recall picked with every score component, the recent turns, the tokens per zone,
 * and what the budget cut.
 */
import { api } from './api.js';
import { h, instant, notice, number, replace } from './dom.js';
import {
  CONTEXT_ZONES,
  MEMORY_KINDS,
  type MemoryKind,
  type RecalledFact,
  type RecalledMemory,
  type RecallRequest,
  type RecallResponse,
  type RecentTurn,
} from './types.js';

const COMPONENTS = [
  'relevance',
  'coverage',
  'decay',
  'importance',
  'confidence',
  'usage',
  'prior',
  'steering',
  'session',
  'bm25Rank',
  'knnRank',
  'ageDays',
] as const;

export class RecallView {
  private userId: string | null = null;
  private readonly result = h('div', { class: 'recall-result', 'aria-live': 'polite' });
  private readonly form: HTMLFormElement;

  constructor(private readonly panel: HTMLElement) {
    this.form = this.buildForm();
    replace(panel, notice('Pick a user first.'));
  }

  show(userId: string): void {
    this.userId = userId;
    replace(this.result);
    replace(this.panel, this.form, this.result);
  }

  private buildForm(): HTMLFormElement {
    const field = (label: string, input: HTMLElement, hint?: string) =>
      h('label', { class: 'field' }, h('span', {}, label), input, hint ? h('small', {}, hint) : null);
    const form = h(
      'form',
      { class: 'recall-form', 'aria-label': 'Recall debugger' },
      field(
        'Query',
        h('input', { name: 'query', type: 'search', required: true, placeholder: '数据库用什么 / which editor', autocomplete: 'off' }),
      ),
      h(
        'div',
        { class: 'row' },
        field('k', h('input', { name: 'k', type: 'number', min: 1, max: 50, placeholder: 'default' })),
        field('Budget (tokens)', h('input', { name: 'budget', type: 'number', min: 50, max: 100000, placeholder: 'default' })),
        field('Session', h('input', { name: 'sessionId', type: 'text', placeholder: 'adds recent turns', autocomplete: 'off' })),
        field(
          'As of',
          h('input', { name: 'asOf', type: 'text', placeholder: '2026-11-30T09:00:00Z', autocomplete: 'off' }),
          'as engram knew it',
        ),
        field(
          'Valid at',
          h('input', { name: 'validAt', type: 'text', placeholder: '2026-11-30T09:00:00Z', autocomplete: 'off' }),
          'as it was true',
        ),
      ),
      h(
        'fieldset',
        { class: 'kinds' },
        h('legend', {}, 'Kinds (none checked: all)'),
        MEMORY_KINDS.filter((kind) => kind !== 'summary').map((kind) =>
          h('label', { class: 'chip' }, h('input', { type: 'checkbox', name: 'kinds', value: kind }), ` ${kind}`),
        ),
      ),
      h('button', { type: 'submit' }, 'Recall'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run();
    });
    return form;
  }

  private request(): RecallRequest {
    const data = new FormData(this.form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const kinds = data.getAll('kinds').map(String) as MemoryKind[];
    return {
      userId: this.userId!,
      query: text('query'),
      ...(text('k') ? { k: Number(text('k')) } : {}),
      ...(text('budget') ? { budget: { total: Number(text('budget')) } } : {}),
      ...(text('sessionId') ? { sessionId: text('sessionId') } : {}),
      ...(text('asOf') ? { asOf: text('asOf') } : {}),
      ...(text('validAt') ? { validAt: text('validAt') } : {}),
      ...(kinds.length > 0 ? { kinds } : {}),
    };
  }

  private async run(): Promise<void> {
    if (!this.userId) return;
    replace(this.result, notice('Recalling…'));
    try {
      this.render(await api.recall(this.request()));
    } catch (error) {
      replace(this.result, notice(`Recall refused: ${(error as Error).message}`, 'error'));
    }
  }

  private render(response: RecallResponse): void {
    const debug = response.debug;
    const cut = debug?.cut;
    const cutCount = cut ? cut.facts.length + cut.procedures.length + cut.memories.length + cut.summaryLines + cut.recent.length : 0;
    replace(
      this.result,
      h(
        'p',
        { class: 'summary-line' },
        `${response.tokens} tokens · ${response.facts.length} facts · ${response.procedures.length} procedures · ${response.memories.length} memories · ${response.recent.length} recent turns`,
        response.consistent ? null : h('span', { class: 'status status-retracted' }, ' not caught up'),
      ),
      debug
        ? h(
            'table',
            { class: 'zones', 'aria-label': 'Tokens per zone' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                CONTEXT_ZONES.map((zone) => h('th', { scope: 'col' }, zone)),
              ),
            ),
            h(
              'tbody',
              {},
              h(
                'tr',
                {},
                CONTEXT_ZONES.map((zone) => h('td', { class: 'num' }, debug.zones[zone])),
              ),
            ),
          )
        : null,
      factsTable('Facts', response.facts),
      factsTable('Procedures', response.procedures),
      memoriesTable('recalled', 'Memories', response.memories),
      recentList('Recent turns', response.recent),
      h(
        'section',
        { class: 'block cut', 'aria-labelledby': 'cut-title' },
        h('h3', { id: 'cut-title' }, 'Cut by the budget ', h('span', { class: 'count' }, cutCount)),
        cutCount === 0 || !cut
          ? h('p', { class: 'empty' }, 'Nothing: everything offered fitted.')
          : [
              cut.facts.length ? factsTable('Facts cut', cut.facts) : null,
              cut.procedures.length ? factsTable('Procedures cut', cut.procedures) : null,
              cut.memories.length ? memoriesTable('cut', 'Memories cut', cut.memories) : null,
              cut.summaryLines ? h('p', {}, `${cut.summaryLines} summary lines`) : null,
              cut.recent.length ? recentList('Recent turns cut', cut.recent) : null,
            ],
      ),
      h('details', { class: 'context' }, h('summary', {}, 'The context block'), h('pre', {}, response.context || '(empty)')),
    );
  }
}

function factsTable(title: string, facts: RecalledFact[]): HTMLElement | null {
  if (facts.length === 0) return null;
  return h(
    'section',
    { class: 'block' },
    h('h3', {}, `${title} `, h('span', { class: 'count' }, facts.length)),
    h(
      'table',
      { 'aria-label': title },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Kind', 'Content', 'Attribute', 'Value', 'v'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        facts.map((f) =>
          h(
            'tr',
            {},
            h('td', {}, h('span', { class: `kind kind-${f.kind}` }, f.kind)),
            h('td', { class: 'content' }, f.content),
            h('td', {}, f.attribute),
            h('td', {}, f.value),
            h('td', { class: 'num' }, f.version),
          ),
        ),
      ),
    ),
  );
}

function memoriesTable(id: string, title: string, memories: RecalledMemory[]): HTMLElement {
  return h(
    'section',
    { class: 'block' },
    h('h3', { id: `${id}-title` }, `${title} `, h('span', { class: 'count' }, memories.length)),
    memories.length === 0
      ? h('p', { class: 'empty' }, 'None.')
      : h(
          'div',
          { class: 'scroll', tabindex: '0', role: 'region', 'aria-labelledby': `${id}-title` },
          h(
            'table',
            { class: 'scores', id: `${id}-memories` },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, '#'),
                h('th', { scope: 'col' }, 'Kind'),
                h('th', { scope: 'col' }, 'Content'),
                h('th', { scope: 'col' }, 'Score'),
                COMPONENTS.map((c) => h('th', { scope: 'col', class: 'num' }, c)),
              ),
            ),
            h(
              'tbody',
              {},
              memories.map((m, i) =>
                h(
                  'tr',
                  {},
                  h('td', { class: 'num' }, i + 1),
                  h('td', {}, h('span', { class: `kind kind-${m.kind}` }, m.kind)),
                  h('td', { class: 'content' }, m.content),
                  h('td', { class: 'num score' }, number(m.score)),
                  COMPONENTS.map((c) => h('td', { class: 'num', 'data-component': c }, number(m.components?.[c], c === 'ageDays' ? 1 : 3))),
                ),
              ),
            ),
          ),
        ),
  );
}

function recentList(title: string, turns: RecentTurn[]): HTMLElement | null {
  if (turns.length === 0) return null;
  return h(
    'section',
    { class: 'block' },
    h('h3', {}, `${title} `, h('span', { class: 'count' }, turns.length)),
    h(
      'ol',
      { class: 'turns' },
      turns.map((t) => h('li', {}, h('span', { class: 'when' }, `${instant(t.occurredAt)} · ${t.speaker ?? t.role}`), ' ', t.text)),
    ),
  );
}
