/**
 * The engram web inspector: asks for the API key when the server wants one, then shows a user's
 * memories (with their history), a recall debugger and the pipeline. Plain DOM, no framework.
 */
import { ApiError, keys } from './api.js';
import { arrowKeys, byId, focusItem } from './dom.js';
import { MemoriesView } from './memories.js';
import { PipelineView } from './pipeline.js';
import { RecallView } from './recall.js';
import { UserPicker } from './users.js';

const TABS = ['memories', 'recall', 'pipeline'] as const;
type Tab = (typeof TABS)[number];

class Inspector {
  private readonly memories = new MemoriesView(byId('panel-memories'));
  private readonly recall = new RecallView(byId('panel-recall'));
  private readonly pipeline = new PipelineView(byId('panel-pipeline'));
  private readonly users = new UserPicker((userId) => this.pick(userId));
  private tab: Tab = 'memories';

  async start(): Promise<void> {
    this.wireSignIn();
    this.wireTabs();
    document.addEventListener('keydown', (event) => {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      event.preventDefault();
      this.users.focusSearch();
    });
    await this.open();
  }

  /** Loads the first users; a 401 means this server has keys and ours is missing or wrong. */
  private async open(): Promise<void> {
    try {
      await this.users.load();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return this.askForKey(keys.tenant() ? 'That key was refused.' : null);
      byId('users-status').textContent = `Could not list the users: ${error instanceof Error ? error.message : String(error)}`;
    }
    byId('sign-in').hidden = true;
    byId('app').hidden = false;
    byId('sign-out').hidden = keys.tenant() === null;
    this.pipeline.invalidate();
    if (this.tab === 'pipeline') void this.pipeline.show();
    this.users.focusSearch();
  }

  private askForKey(error: string | null): void {
    byId('app').hidden = true;
    byId('sign-in').hidden = false;
    const message = byId('key-error');
    message.hidden = error === null;
    message.textContent = error ?? '';
    byId<HTMLInputElement>('key-input').focus();
  }

  private wireSignIn(): void {
    byId<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const input = byId<HTMLInputElement>('key-input');
      keys.setTenant(input.value.trim());
      input.value = '';
      void this.open();
    });
    byId('sign-out').addEventListener('click', () => {
      keys.clear();
      location.reload();
    });
  }

  private wireTabs(): void {
    const tablist = byId('tabs');
    const tabs = TABS.map((tab) => byId(`tab-${tab}`));
    tabs.forEach((button, i) => button.addEventListener('click', () => this.select(TABS[i])));
    arrowKeys(tablist, '[role="tab"]', { next: 'ArrowRight', previous: 'ArrowLeft' });
    // Moving along the tabs selects them (the WAI-ARIA tabs pattern with automatic activation).
    tablist.addEventListener('focusin', (event) => {
      const at = tabs.indexOf(event.target as HTMLElement);
      if (at >= 0 && TABS[at] !== this.tab) this.select(TABS[at]);
    });
  }

  private select(tab: Tab): void {
    this.tab = tab;
    const tabs = TABS.map((t) => byId(`tab-${t}`));
    TABS.forEach((t, i) => {
      tabs[i].setAttribute('aria-selected', String(t === tab));
      byId(`panel-${t}`).hidden = t !== tab;
    });
    focusItem(tabs, TABS.indexOf(tab), false);
    if (tab === 'pipeline') void this.pipeline.show();
  }

  private pick(userId: string): void {
    byId('user-title').textContent = userId;
    void this.memories.show(userId);
    this.recall.show(userId);
    if (this.tab === 'pipeline') this.select('memories');
    byId(`tab-${this.tab}`).focus();
  }
}

function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  return !!element && (element.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName));
}

void new Inspector().start().catch((error: unknown) => {
  document.body.append(String(error instanceof Error ? error.message : error));
});
