export * from './platform';
export * from './risks';
export * from './controls';
