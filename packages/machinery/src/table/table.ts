/**
 * Server-side Tables (meta.k8s.io/v1 and v1beta1 `Table`): rows of cells computed by printer
 * columns, each row carrying the object as `includeObject` asks.
 */
import type { KubeObject, ListMeta } from '../object.js';
import type { PrinterColumn, TableColumnDefinition } from './columns.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';
export type TableVersion = 'v1' | 'v1beta1';

export interface TableRow {
  cells: unknown[];
  /** The object (Object), its PartialObjectMetadata (Metadata), or null (None). */
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  /** null after the first event of a watch (kube sends the headers once). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  readonly columns: readonly PrinterColumn[];
  readonly version: TableVersion;
  readonly includeObject: IncludeObject;
  /** Leave out column definitions (every watch event after the first). */
  readonly noHeaders?: boolean;
  /** The clock for ages, ms since the epoch. */
  readonly now: number;
}

/** `{kind: PartialObjectMetadata, apiVersion: meta.k8s.io/<version>, metadata}` of an object. */
export function partialObjectMetadata(obj: KubeObject, version: TableVersion): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

function rowObject(obj: KubeObject, options: TableOptions): unknown {
  switch (options.includeObject) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      return partialObjectMetadata(obj, options.version);
  }
}

/**
 * A Table of `items` with `metadata` (a list's resourceVersion, continue and
 * remainingItemCount; a single object's resourceVersion). Never mutates the items.
 */
export function buildTable(items: readonly KubeObject[], metadata: ListMeta, options: TableOptions): Table {
  const rows: TableRow[] = items.map((obj) => ({
    cells: options.columns.map((c) => c.cell(obj, options.now)),
    object: rowObject(obj, options),
  }));
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata,
    columnDefinitions: options.noHeaders === true ? null : options.columns.map((c) => ({ ...c.definition })),
    rows,
  };
}
