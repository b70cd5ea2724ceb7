export * from './platform';
export * from './risks';
export * from './controls';
export * from "./incidents";
export * from "./audits";
export * from "./assets";
export * from "./third-parties";
export * from "./projects";
