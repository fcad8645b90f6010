/** The user picker: the tenant's users a page at a time, filtered as you type; arrows move, Enter opens. */
import { api } from './api.js';
import { arrowKeys, byId, focusItem, h, replace } from './dom.js';

export class UserPicker {
  private readonly search = byId<HTMLInputElement>('user-search');
  private readonly list = byId<HTMLUListElement>('user-list');
  private readonly status = byId('users-status');
  private readonly more = byId<HTMLButtonElement>('more-users');
  private users: string[] = [];
  private next: string | null = null;
  private picked: string | null = null;

  constructor(private readonly onPick: (userId: string) => void) {
    this.search.addEventListener('input', () => this.render());
    this.search.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        void this.pickFirstMatch();
      } else if (event.key === 'ArrowDown') {
        event.preventDefault();
        this.options()[0]?.focus();
      }
    });
    this.more.addEventListener('click', () => void this.loadMore());
    arrowKeys(this.list, '[role="option"]');
    this.list.addEventListener('keydown', (event) => {
      const option = (event.target as HTMLElement).closest<HTMLElement>('[role="option"]');
      if (option && (event.key === 'Enter' || event.key === ' ')) {
        event.preventDefault();
        this.pick(option.dataset.user!);
      }
    });
  }

  async load(): Promise<void> {
    const page = await api.users();
    this.users = page.users;
    this.next = page.next;
    this.render();
  }

  focusSearch(): void {
    this.search.focus();
    this.search.select();
  }

  private async loadMore(): Promise<void> {
    if (this.next === null) return;
    const page = await api.users(this.next);
    this.users.push(...page.users);
    this.next = page.next;
    this.render();
  }

  /** Enter in the search box: the first user matching, loading further pages until one does. */
  private async pickFirstMatch(): Promise<void> {
    while (this.matching().length === 0 && this.next !== null) await this.loadMore();
    const [first] = this.matching();
    if (first) this.pick(first);
  }

  private matching(): string[] {
    const term = this.search.value.trim().toLowerCase();
    return term ? this.users.filter((user) => user.toLowerCase().includes(term)) : this.users;
  }

  private options(): HTMLElement[] {
    return [...this.list.querySelectorAll<HTMLElement>('[role="option"]')];
  }

  private pick(userId: string): void {
    this.picked = userId;
    this.render();
    this.onPick(userId);
  }

  private render(): void {
    const shown = this.matching();
    replace(
      this.list,
      shown.map((user) =>
        h(
          'li',
          {
            role: 'option',
            id: `user-${user}`,
            'data-user': user,
            'aria-selected': String(user === this.picked),
            tabindex: '-1',
            onclick: () => this.pick(user),
          },
          user,
        ),
      ),
    );
    const options = this.options();
    if (options.length > 0) focusItem(options, Math.max(0, shown.indexOf(this.picked ?? '')), false);
    this.status.textContent =
      this.users.length === 0
        ? 'No user holds memories yet.'
        : shown.length === 0
          ? 'No user matches.'
          : `${shown.length} of ${this.users.length}${this.next ? '+' : ''} users`;
    this.more.hidden = this.next === null;
  }
}
