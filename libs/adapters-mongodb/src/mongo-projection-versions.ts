import type { FactStore, ProjectionVersions, RebuildLedger, RebuildRecord, SessionStore, VersionedProjection } from '@engram/ports';
import type { Collection, Db } from 'mongodb';
import { upsertById } from './mongo-common';
import { MongoFactStore } from './mongo-fact-store.adapter';
import { MongoSessionStore } from './mongo-session-store.adapter';

/** Collection suffix of a projection version: version 1 keeps the pre-versioning names (`facts`), later ones `facts_v2`, … */
export function mongoVersionSuffix(version: number): string {
  if (!Number.isInteger(version) || version < 1) throw new Error(`invalid projection version ${version}`);
  return version === 1 ? '' : `_v${version}`;
}

/** The pointer: one document per projection. No document = version 1 (a database from before versioning). */
interface PointerDocument {
  _id: string;
  active: number;
  versions: number[];
}

interface MongoVersionedKind<S> {
  readonly projection: VersionedProjection;
  open(db: Db, suffix: string): Promise<S>;
  collections(suffix: string): readonly string[];
}

/**
 * Versions of one projection in MongoDB/FerretDB: `<name>_v<n>` collections
 * plus a pointer document in `projection_versions`. FerretDB has no views and
 * no renameCollection guarantees, so readers resolve the pointer themselves
 * (`followActiveVersion`, cached briefly); moving it is one single-document
 * write, atomic on both servers.
 */
export class MongoProjectionVersions<S> implements ProjectionVersions<S> {
  /** Activations through this instance (followers in this process refresh on a change). */
  activations = 0;
  readonly projection: VersionedProjection;
  private readonly pointers: Collection<PointerDocument>;
  private readonly stores = new Map<number, Promise<S>>();

  constructor(
    private readonly db: Db,
    private readonly kind: MongoVersionedKind<S>,
  ) {
    this.projection = kind.projection;
    this.pointers = db.collection<PointerDocument>('projection_versions');
  }

  async active(): Promise<number> {
    return (await this.pointers.findOne({ _id: this.projection }))?.active ?? 1;
  }

  open(version: number): Promise<S> {
    const suffix = mongoVersionSuffix(version);
    let store = this.stores.get(version);
    if (!store) {
      store = (async () => {
        const opened = await this.kind.open(this.db, suffix);
        // Processes started together on a fresh database all create the pointer (upsertById).
        await upsertById(() =>
          this.pointers.updateOne(
            { _id: this.projection },
            { $setOnInsert: { active: 1 }, $addToSet: { versions: version } },
            { upsert: true },
          ),
        );
        return opened;
      })();
      this.stores.set(version, store);
      store.catch(() => this.stores.delete(version));
    }
    return store;
  }

  async activate(version: number): Promise<void> {
    await this.open(version);
    await upsertById(() =>
      this.pointers.updateOne({ _id: this.projection }, { $set: { active: version }, $addToSet: { versions: version } }, { upsert: true }),
    );
    this.activations++;
  }

  async drop(version: number): Promise<void> {
    if ((await this.active()) === version)
      throw new Error(`${this.projection} version ${version} is active: activate another one before dropping it`);
    const suffix = mongoVersionSuffix(version);
    for (const name of this.kind.collections(suffix)) {
      await this.db
        .collection(name)
        .drop()
        .catch((error: { codeName?: string; code?: number }) => {
          if (error.codeName !== 'NamespaceNotFound' && error.code !== 26) throw error;
        });
    }
    this.stores.delete(version);
    await this.pointers.updateOne({ _id: this.projection }, { $pull: { versions: version } });
  }

  async list(): Promise<number[]> {
    const versions = new Set((await this.pointers.findOne({ _id: this.projection }))?.versions ?? []);
    // Version 1's collections predate the pointer in old databases.
    const existing = new Set((await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    if (this.kind.collections('').some((name) => existing.has(name))) versions.add(1);
    return [...versions].sort((a, b) => a - b);
  }
}

export function mongoFactStoreVersions(db: Db): MongoProjectionVersions<FactStore> {
  return new MongoProjectionVersions<FactStore>(db, {
    projection: 'facts',
    open: (d, suffix) => MongoFactStore.open(d, { suffix }),
    collections: (suffix) => [`facts${suffix}`],
  });
}

export function mongoSessionStoreVersions(db: Db): MongoProjectionVersions<SessionStore> {
  return new MongoProjectionVersions<SessionStore>(db, {
    projection: 'sessions',
    open: (d, suffix) => MongoSessionStore.open(d, { suffix }),
    collections: (suffix) => [`turns${suffix}`, `turns${suffix}_seq`],
  });
}

interface RebuildDocument extends RebuildRecord {
  _id: string;
}

/** Rebuild records in `projection_rebuilds`, one document per (projection, version). */
export class MongoRebuildLedger implements RebuildLedger {
  private readonly records: Collection<RebuildDocument>;

  constructor(db: Db) {
    this.records = db.collection<RebuildDocument>('projection_rebuilds', { ignoreUndefined: true });
  }

  async save(record: RebuildRecord): Promise<void> {
    const _id = `${record.projection}:${record.version}`;
    await upsertById(() => this.records.replaceOne({ _id }, { ...record }, { upsert: true }));
  }

  async list(): Promise<RebuildRecord[]> {
    const documents = await this.records.find({}).sort({ startedAt: 1 }).toArray();
    return documents.map(({ _id, ...record }) => record);
  }
}
