export * from './kafka-event-log.adapter';
