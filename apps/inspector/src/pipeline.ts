/**
 * The pipeline: what the tenant's key may see (its pending events), then what only the admin key
 * opens, since it covers every tenant: lag per stage, projection versions, rebuilds and dead
 * letters. Without the admin key it says so and offers to take it.
 */
import { api, ApiError, keys } from './api.js';
import { h, instant, notice, number, replace } from './dom.js';
import type { DeadLettersResponse, PipelineStatus, ProjectionVersions, RebuildList } from './types.js';

export class PipelineView {
  private loaded = false;

  constructor(private readonly panel: HTMLElement) {}

  /** The keys changed: load again when next shown. */
  invalidate(): void {
    this.loaded = false;
  }

  async show(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    await this.load();
  }

  private async load(): Promise<void> {
    replace(this.panel, notice('Loading the pipeline…'));
    const refresh = h('button', { type: 'button', onclick: () => void this.load() }, 'Refresh');
    let status: PipelineStatus;
    try {
      status = await api.pipeline();
    } catch (error) {
      replace(this.panel, refresh, notice(`Could not read the pipeline: ${(error as Error).message}`, 'error'));
      return;
    }
    const admin = h('div', { class: 'admin' });
    replace(this.panel, h('div', { class: 'toolbar' }, refresh), stagesTable(status), admin);
    await this.loadAdmin(admin);
  }

  private async loadAdmin(into: HTMLElement): Promise<void> {
    try {
      const [projections, rebuilds, letters] = await Promise.all([api.projections(), api.rebuilds(), api.deadLetters()]);
      replace(into, projectionsTable(projections), rebuildsTable(rebuilds), deadLettersTable(letters));
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 403)) {
        replace(into, notice(`Could not read the admin data: ${(error as Error).message}`, 'error'));
        return;
      }
      replace(into, this.adminKeyForm(keys.admin() ? `The admin key was refused (${error.message}).` : null));
    }
  }

  private adminKeyForm(refused: string | null): HTMLElement {
    const input = h('input', { id: 'admin-key', type: 'password', autocomplete: 'off', required: true });
    const form = h(
      'form',
      { class: 'card admin-key', 'aria-labelledby': 'admin-key-title' },
      h('h3', { id: 'admin-key-title' }, 'Admin data needs the admin key'),
      h(
        'p',
        {},
        'Projection versions, rebuilds and dead letters cover every tenant, so a tenant key does not open them: they need ENGRAM_ADMIN_KEY.',
      ),
      refused ? notice(refused, 'error') : null,
      h('label', { for: 'admin-key' }, 'Admin key'),
      input,
      h('button', { type: 'submit' }, 'Show admin data'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      keys.setAdmin(input.value.trim());
      void this.load();
    });
    return form;
  }
}

function table(title: string, columns: string[], rows: (string | number | Node)[][], id: string): HTMLElement {
  return h(
    'section',
    { class: 'block', 'aria-labelledby': `${id}-title` },
    h('h3', { id: `${id}-title` }, title),
    rows.length === 0
      ? h('p', { class: 'empty' }, 'None.')
      : h(
          'table',
          { id, 'aria-labelledby': `${id}-title` },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              columns.map((c, i) => h('th', { scope: 'col', class: typeof rows[0][i] === 'number' ? 'num' : '' }, c)),
            ),
          ),
          h(
            'tbody',
            {},
            rows.map((row) =>
              h(
                'tr',
                {},
                row.map((cell) => h('td', { class: typeof cell === 'number' ? 'num' : '' }, cell)),
              ),
            ),
          ),
        ),
  );
}

function stagesTable(status: PipelineStatus): HTMLElement {
  const caughtUp = status.pending === 0 ? ' · recall sees everything' : '';
  if (status.scope === 'tenant' || !status.stages) {
    return h('p', { class: 'summary-line' }, `${status.pending} events pending`, caughtUp);
  }
  return h(
    'div',
    {},
    h('p', { class: 'summary-line' }, `${status.pending} events pending of ${status.ingested ?? 0} ingested`, caughtUp),
    table(
      'Lag per stage',
      ['Topic', 'Stage (group)', 'Lag'],
      status.stages.map((s) => [s.topic, s.group, s.lag]),
      'stages',
    ),
  );
}

function projectionsTable({ projections }: ProjectionVersions): HTMLElement {
  return table(
    'Projection versions',
    ['Projection', 'Serving', 'Versions kept'],
    projections.map((p) => [p.projection, p.active, p.versions.join(', ')]),
    'projections',
  );
}

function rebuildsTable({ rebuilds }: RebuildList): HTMLElement {
  return table(
    'Rebuilds',
    ['Projection', 'Version', 'Phase', 'Done / total', 'Events/s', 'ETA (s)', 'Started', 'Here'],
    rebuilds.map((r) => [
      r.projection,
      `${r.previousVersion} → ${r.version}`,
      r.error ? `${r.phase}: ${r.error}` : r.phase,
      `${r.done} / ${r.total}`,
      number(r.eventsPerSecond, 1),
      r.etaSeconds ?? '—',
      instant(r.startedAt),
      r.running ? 'running' : '—',
    ]),
    'rebuilds',
  );
}

function deadLettersTable({ topics }: DeadLettersResponse): HTMLElement {
  const counts = table(
    'Dead letters',
    ['Topic', 'Letters'],
    topics.map((t) => [t.topic, t.count]),
    'dead-letters',
  );
  const letters = topics.flatMap((t) => t.letters);
  if (letters.length === 0) return counts;
  return h(
    'div',
    {},
    counts,
    table(
      'Newest letters',
      ['Topic', 'Offset', 'Stage', 'Reason', 'Error', 'Attempts', 'Failed at', 'Message'],
      letters.map((l) => [
        l.topic,
        l.offset,
        l.stage,
        l.reason,
        l.error,
        l.attempts,
        instant(l.failedAt),
        h('code', { class: 'raw' }, l.raw),
      ]),
      'letters',
    ),
  );
}
