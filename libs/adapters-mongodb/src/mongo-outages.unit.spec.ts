import {
  MongoBulkWriteError,
  MongoClient,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { DependencyUnavailableError } from '@engram/ports';
import { isMongoOutage, withMongoOutages } from './mongo-outages';

describe('isMongoOutage: the server is away, or the call is at fault', () => {
  it('no server selected in time (nothing listens on the port): an outage', async () => {
    // The driver's own error, from a port nothing listens on (1 on the loopback).
    const refused: unknown = await MongoClient.connect('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 200 }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(MongoServerSelectionError);
    expect(isMongoOutage(refused)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a connection that broke', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
    ['a connection silent past the socket timeout', new MongoNetworkTimeoutError('connection timed out')],
    ['the server shutting down', new MongoServerError({ code: 91, errmsg: 'shutdown in progress' })],
    ['maxTimeMS expired', new MongoServerError({ code: 50, errmsg: 'operation exceeded time limit' })],
    [
      'a bulk write whose connection went silent (the driver wraps the error)',
      new MongoBulkWriteError(new MongoNetworkTimeoutError('connection 8 to 127.0.0.1:45193 timed out') as never, {} as never),
    ],
  ])('%s: an outage', (_name, error) => {
    expect(isMongoOutage(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a duplicate key', new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' })],
    ['a bad query', new MongoServerError({ code: 2, errmsg: 'BadValue' })],
    [
      'a bulk write refused for a duplicate key',
      new MongoBulkWriteError({ code: 11000, message: 'E11000 duplicate key error' } as never, {} as never),
    ],
    ['a plain error', new Error('ECONNREFUSED')],
  ])('%s: the call', (_name, error) => {
    expect(isMongoOutage(error)).toBe(false);
  });

  it('a store so wrapped throws an outage as DependencyUnavailableError naming mongodb', async () => {
    const store = withMongoOutages({
      find: () => Promise.reject(new MongoNetworkTimeoutError('connection 1 to 127.0.0.1:27017 timed out')),
    });
    await expect(store.find()).rejects.toEqual(expect.any(DependencyUnavailableError));
    await expect(store.find()).rejects.toMatchObject({ dependency: 'mongodb' });
  });
});
