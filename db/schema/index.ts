export * from './platform';
export * from './risks';
