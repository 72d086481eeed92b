/** Server-side printing: Tables, printer columns, kube's human durations. */
export type { TableColumnDefinition, PrinterColumn } from './columns.js';
export { column, nameColumn, ageColumn, defaultColumns, countOf } from './columns.js';
export type { IncludeObject, TableVersion, TableRow, Table, TableOptions } from './table.js';
export { buildTable, partialObjectMetadata } from './table.js';
export { humanDuration, timestampSince } from './human-duration.js';
