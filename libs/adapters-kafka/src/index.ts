export * from './kafka-event-log.adapter';
export * from './kafka-options';
export * from './send-chunks';
export * from './kafka-outages';
