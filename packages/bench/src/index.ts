export { quantile, summarize, ratio, SampleBuffer, type LatencySummary } from './stats.js';
export { runClosedLoop, type ClosedLoopOptions, type LoadResult, type Operation } from './load.js';
export { readProcess, monitorProcess, childPids, type ProcessSample, type ProcessUsage } from './process-stats.js';
export { canPin, pin, affinity } from './pinning.js';
export { KapiClient, UnexpectedStatusError, oneKibData } from './kapi-client.js';
export { EtcdBaseline } from './etcd-client.js';
export { parseSuiteOptions, usage, type SuiteOptions } from './options.js';
export { runSuite, type SuiteResult, type StepResult, type Target, type OperationName } from './suite.js';
export { textReport, markdownReport, writeReports, textTable, markdownTable, stepRows, ratioRows } from './report.js';
