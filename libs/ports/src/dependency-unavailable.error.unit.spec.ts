import { DependencyUnavailableError, reportingOutages, unavailableDependency } from './dependency-unavailable.error';

describe('unavailableDependency: is a failure an outage of a dependency, or the fault of the call?', () => {
  const outage = new DependencyUnavailableError('embedder', 'POST …/v1/embeddings: ECONNREFUSED (gave up after 4 attempts)');

  it('given the error itself, then the outage, naming the dependency', () => {
    expect(unavailableDependency(outage)).toBe(outage);
    expect(unavailableDependency(outage)?.dependency).toBe('embedder');
  });

  it('given an error that wraps it (as cause, at any depth), then the outage', () => {
    const wrapped = new Error('indexing failed', { cause: new Error('embedding failed', { cause: outage }) });
    expect(unavailableDependency(wrapped)).toBe(outage);
  });

  it.each<[string, unknown]>([
    ['a plain error (a bug, a refused input)', new Error('POST …/v1/embeddings → 400: input must not be empty')],
    ['an error whose cause is one too', new Error('x', { cause: new TypeError('y') })],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
    ['null', null],
    ['an object looking like one, but not one', { name: 'DependencyUnavailableError', dependency: 'embedder' }],
  ])('given %s, then none: the event is at fault', (_name, error) => {
    expect(unavailableDependency(error)).toBeUndefined();
  });

  it('given causes that loop, then it ends', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(unavailableDependency(a)).toBeUndefined();
  });

  it('keeps what the dependency asked for: its Retry-After, and the failure it stands for', () => {
    const cause = new Error('→ 429: slow down');
    const limited = new DependencyUnavailableError('llm', 'gave up', { cause, retryAfterMs: 7000 });
    expect(limited).toMatchObject({ name: 'DependencyUnavailableError', dependency: 'llm', retryAfterMs: 7000, cause });
    expect(limited).toBeInstanceOf(Error);
  });
});

describe('reportingOutages: a store whose server is down says so', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
  const isOutage = (error: unknown) => (error as { code?: string }).code === 'ECONNREFUSED';

  class Store {
    calls = 0;
    async read(fail: unknown): Promise<string> {
      this.calls++;
      if (fail) throw fail;
      return 'answer';
    }
    twice(fail: unknown): Promise<string> {
      return this.read(fail).then(() => this.read(fail));
    }
    name(): string {
      return 'store';
    }
  }

  function observed() {
    const heard: string[] = [];
    return { heard, observer: { failed: (d: string) => heard.push(`failed ${d}`), answered: (d: string) => heard.push(`answered ${d}`) } };
  }

  it('given an outage, then a DependencyUnavailableError naming the dependency, caused by the original; the observer hears it', async () => {
    const { heard, observer } = observed();
    const store = reportingOutages(new Store(), 'mongodb', isOutage, observer);
    const error = await store.read(refused).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ dependency: 'mongodb', cause: refused });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(heard).toEqual(['failed mongodb']);
  });

  it("given the call's own fault, then that error as it was", async () => {
    const { heard, observer } = observed();
    const store = reportingOutages(new Store(), 'mongodb', isOutage, observer);
    const own = new Error('E11000 duplicate key');
    await expect(store.read(own)).rejects.toBe(own);
    expect(heard).toEqual([]);
  });

  it('given an answer, then the answer, and the observer hears the dependency answered; values and sync methods pass through', async () => {
    const { heard, observer } = observed();
    const target = new Store();
    const store = reportingOutages(target, 'elasticsearch', isOutage, observer);
    await expect(store.read(undefined)).resolves.toBe('answer');
    expect(store.name()).toBe('store');
    expect(store.calls).toBe(1);
    expect(heard).toEqual(['answered elasticsearch']);
  });

  it("runs the target's methods on the target: its own calls are not classified twice", async () => {
    const { heard, observer } = observed();
    const store = reportingOutages(new Store(), 'kafka', isOutage, observer);
    await expect(store.twice(undefined)).resolves.toBe('answer');
    expect(heard).toEqual(['answered kafka']);
    const error = await store.twice(refused).catch((e: unknown) => e);
    expect(error).toMatchObject({ dependency: 'kafka', cause: refused });
  });

  it('keeps an outage another layer already named', async () => {
    const embedder = new DependencyUnavailableError('embedder', 'down');
    const store = reportingOutages(new Store(), 'elasticsearch', isOutage);
    await expect(store.read(embedder)).rejects.toBe(embedder);
  });
});
