export * from './data-key-ring';
export * from './master-key';
export * from './sealing-event-log';
export * from './encrypt-log';
