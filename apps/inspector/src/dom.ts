/** A few DOM helpers: elements are built with text nodes only (memories are user content, never HTML). */
type Attributes = Record<string, string | number | boolean | undefined | EventListener>;
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

/** `2026-11-30 09:00` in UTC: the instants engram stores, without the seconds. */
export function instant(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso
    .replace('T', ' ')
    .replace(/:\d\d(\.\d+)?Z$/, 'Z')
    .replace(/:\d\d(\.\d+)?([+-]\d\d:\d\d)$/, '$2');
}

export function number(value: number | undefined, digits = 3): string {
  return value === undefined ? '—' : Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/** A status line for a panel: what is loading, what failed and why. */
export function notice(text: string, kind: 'info' | 'error' = 'info'): HTMLElement {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/**
 * Arrow keys move the focus between the items a container holds (roving tabindex: only the
 * current item is in the tab order), Home/End jump to the ends.
 */
export function arrowKeys(
  container: HTMLElement,
  itemSelector: string,
  keys: { next: string; previous: string } = { next: 'ArrowDown', previous: 'ArrowUp' },
): void {
  container.addEventListener('keydown', (event) => {
    const items = [...container.querySelectorAll<HTMLElement>(itemSelector)];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (at < 0) return;
    const to =
      event.key === keys.next
        ? Math.min(items.length - 1, at + 1)
        : event.key === keys.previous
          ? Math.max(0, at - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? items.length - 1
              : -1;
    if (to < 0) return;
    event.preventDefault();
    focusItem(items, to);
  });
}

/** Makes item `index` the one in the tab order and focuses it. */
export function focusItem(items: readonly HTMLElement[], index: number, focus = true): void {
  items.forEach((item, i) => item.setAttribute('tabindex', i === index ? '0' : '-1'));
  if (focus) items[index]?.focus();
}
