/**
 * Printer columns: what a resource shows in server-side Tables (`kubectl get`). A column is
 * its definition as it goes on the wire plus the function that computes the cell of one
 * object. Resource definitions carry their columns (data); this file has the shared ones.
 */
import type { KubeObject } from '../object.js';
import { timestampSince } from './human-duration.js';

/** metav1.TableColumnDefinition: every key is always present on the wire. */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  /** OpenAPI format; `name` marks the column kubectl uses for `kind/name`. */
  format: string;
  description: string;
  /** 0 for default output; higher values only with `-o wide`. */
  priority: number;
}

/** A column and how to compute its cell for an object at time `now` (ms since the epoch). */
export interface PrinterColumn {
  readonly definition: Readonly<TableColumnDefinition>;
  readonly cell: (obj: KubeObject, now: number) => unknown;
}

export function column(
  name: string,
  type: string,
  description: string,
  cell: PrinterColumn['cell'],
  options: { format?: string; priority?: number } = {},
): PrinterColumn {
  return { definition: { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 }, cell };
}

const NAME_DESCRIPTION = 'Name must be unique within a namespace. Can be used by clients to identify the object and is required when creating it.';
const CREATION_DESCRIPTION = 'When the server created the object (RFC 3339, UTC).';

/** NAME: the object's name, format `name`. */
export const nameColumn: PrinterColumn = column('Name', 'string', NAME_DESCRIPTION, (obj) => obj.metadata.name ?? '', { format: 'name' });

/** AGE: the time since creation as kubectl prints it. */
export const ageColumn: PrinterColumn = column('Age', 'string', CREATION_DESCRIPTION, (obj, now) => timestampSince(obj.metadata.creationTimestamp, now));

/** The columns of resources without printers (kube's default table convertor): Name and Created At. */
export const defaultColumns: readonly PrinterColumn[] = [
  nameColumn,
  column('Created At', 'date', CREATION_DESCRIPTION, (obj) => {
    const t = obj.metadata.creationTimestamp;
    if (typeof t !== 'string' || Number.isNaN(Date.parse(t))) return '0001-01-01T00:00:00Z';
    return `${new Date(Date.parse(t)).toISOString().slice(0, 19)}Z`;
  }),
];

/** The number of entries of a map or list field (0 when absent). */
export function countOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length;
  return 0;
}
