// Webhooks: how a delivery is signed, which URLs may receive one, when a failed one is tried again, what it carries.
export * from './webhook-signature';
export * from './webhook-url';
export * from './webhook-retry';
export * from './webhook-payload';
