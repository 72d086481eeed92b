/**
 * For tests: one object of every catalogue kind as kube's Go code encodes it (protobuf, base64)
 * and marshals it (JSON), recorded in testdata/go-golden-catalog.json.
 */
import { readFileSync } from 'node:fs';

export interface CatalogGolden {
  apiVersion: string;
  kind: string;
  protobuf: string;
  goJson: Record<string, unknown>;
}

const catalogFile = new URL('../../src/protobuf/testdata/go-golden-catalog.json', import.meta.url);

export function catalogGolden(): CatalogGolden[] {
  return (JSON.parse(readFileSync(catalogFile, 'utf8')) as { golden: CatalogGolden[] }).golden;
}
