/** `@engram/client/kafka`: writing turns straight to engram's log. Its own entry point, so only applications that use it need kafkajs. */
export { KafkaTurnProducer } from './kafka-turn-producer';
export type { KafkaTurnProducerOptions, ProducedTurns } from './kafka-turn-producer';
export { MAX_EVENT_TEXT, turnKey, turnRecordedEvents, TurnValidationError } from './turn-events';
export type { TurnBatch, TurnRecordedEvent } from './turn-events';
