// When a MongoDB-protocol call failed because the server is away, not because of the call.
import { type DependencyName, type OutageObserver, reportingOutages } from '@engram/ports';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';

const MONGODB: DependencyName = 'mongodb';

/**
 * Server answers that mean "not now": the server or its primary is going away or did not finish in
 * time (HostUnreachable 6, HostNotFound 7, MaxTimeMSExpired 50, NetworkTimeout 89,
 * ShutdownInProgress 91, PrimarySteppedDown 189, ExceededTimeLimit 262, NotWritablePrimary 10107,
 * InterruptedAtShutdown 11600, InterruptedDueToReplStateChange 11602, NotPrimaryNoSecondaryOk 13435,
 * NotPrimaryOrSecondary 13436).
 */
const LATER_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 10107, 11600, 11602, 13435, 13436]);

/**
 * An outage of the MongoDB-protocol server: no server could be selected within
 * MONGODB_SERVER_SELECTION_TIMEOUT_MS (refused, unreachable), a connection broke or went silent past
 * MONGODB_SOCKET_TIMEOUT_MS, or the server said it is going away. A duplicate key, a validation
 * error or a bad query is the call's own fault, and so is a client this process closed.
 */
export function isMongoOutage(error: unknown): boolean {
  // A bulk write that failed on its connection wraps the driver's error (a bulk write of the
  // resolver that outlasted MONGODB_SOCKET_TIMEOUT_MS): judged by that error, not by the wrapper.
  if (error instanceof MongoBulkWriteError && (error.errorResponse as unknown) instanceof Error) return isMongoOutage(error.errorResponse);
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError) return true; // incl. timeouts, a cleared pool
  if (error instanceof MongoOperationTimeoutError || error instanceof MongoServerClosedError) return true;
  return error instanceof MongoServerError && typeof error.code === 'number' && LATER_CODES.has(error.code);
}

/** A MongoDB store whose outages are `DependencyUnavailableError('mongodb')`: stages pause on them, HTTP answers 503. */
export function withMongoOutages<T extends object>(store: T, observer?: OutageObserver): T {
  return reportingOutages(store, MONGODB, isMongoOutage, observer);
}
