export { runStorageConformance, conformanceCases, type ConformanceSetup, type ConformanceOptions } from './suite.js';
export { etcdRawStore, type RawStore } from './raw-store.js';
export type { ConformanceCase, ConformanceContext } from './context.js';
