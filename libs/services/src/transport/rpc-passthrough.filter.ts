import { applyDecorators, ArgumentsHost, Catch, Controller, RpcExceptionFilter, UseFilters } from '@nestjs/common';
import { Observable, throwError } from 'rxjs';

/**
 * Nest's default RPC filter replaces an unknown error with "Internal server
 * error"; stages need the real error for retries, logs and dead letters.
 */
@Catch()
class RpcPassthroughFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

/** A controller of stage handlers: errors reach the transport unchanged. */
export const StageController = () => applyDecorators(Controller(), UseFilters(RpcPassthroughFilter));
