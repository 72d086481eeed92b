/**
 * Serves discovery: `/api` and `/apis` (legacy or aggregated by Accept, aggregated with an
 * ETag and If-None-Match → 304), `/api/<v>`, `/apis/<g>` and `/apis/<g>/<v>` (legacy).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { notAcceptable } from '@kapi/machinery';
import type { ApiSurface } from '../api-surface.js';
import { methodNotRegistered, pageNotFound, pathNotFound } from '../http/generic-errors.js';
import { negotiateOutput, parseAccept } from '../http/negotiation.js';
import { writeObject } from '../http/respond.js';
import { aggregatedContentType, discoveryFormat } from './aggregated.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, type GroupVersions } from './legacy.js';

/** Groups served by aggregated API servers (remote APIServices), listed after the local ones. */
export interface RemoteGroups {
  legacyGroups(): readonly GroupVersions[];
  group(name: string): GroupVersions | undefined;
}

function serverAddress(req: IncomingMessage): string {
  let address = req.socket.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:')) address = address.slice('::ffff:'.length);
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 0}`;
}

function etagMatches(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

/**
 * kube serves `/api` and `/api|apis/<group version>` from go-restful routes that register GET
 * only, so HEAD there is 405; `/apis` and `/apis/<group>` are plain handlers that answer HEAD.
 */
function refuseHead(req: IncomingMessage): void {
  if (req.method === 'HEAD') throw methodNotRegistered();
}

/**
 * `/api` (core) or `/apis`. Throws 406 when the Accept header lists nothing servable, 405 for
 * HEAD on `/api`. `externalAddress` (--external-hostname with the secure port) replaces the
 * address the client reached in `/api`'s serverAddressByClientCIDRs.
 */
export function serveDiscoveryRoot(req: IncomingMessage, res: ServerResponse, surface: ApiSurface, core: boolean, remote?: RemoteGroups, externalAddress?: string): void {
  if (core) refuseHead(req);
  const format = discoveryFormat(parseAccept(req.headers.accept ?? ''));
  if (format === undefined) throw notAcceptable('only the following media types are accepted: application/json, application/yaml, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
  if (format === 'v2' || format === 'v2beta1') {
    const doc = surface.aggregated(core, format);
    const etag = `"${doc.hash}"`;
    const headers = { ETag: etag, Vary: 'Accept', 'Content-Type': aggregatedContentType(format) };
    if (etagMatches(req, etag)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': String(Buffer.byteLength(doc.body)), 'Cache-Control': 'no-cache, private' });
    res.end(doc.body);
    return;
  }
  const groups = surface.groups();
  const body = core ? apiVersions(groups.find((g) => g.name === ''), externalAddress ?? serverAddress(req)) : apiGroupList(groups, remote?.legacyGroups() ?? []);
  writeObject(res, 200, body, format === 'legacy-yaml' ? 'yaml' : 'json', { headers: { Vary: 'Accept' } });
}

/** `/api/<v>`, `/apis/<g>`, `/apis/<g>/<v>`. `segments` is the path after `api`/`apis`. Throws 404 for unknown groups/versions, 405 for HEAD on a group version. */
export function serveDiscoveryDocument(req: IncomingMessage, res: ServerResponse, surface: ApiSurface, core: boolean, segments: readonly string[], remote?: RemoteGroups): void {
  const output = negotiateOutput(req.headers.accept);
  if (core) {
    const gv = segments.length === 1 ? surface.groupVersion('', segments[0]!) : undefined;
    if (gv === undefined) throw pathNotFound();
    refuseHead(req);
    return writeObject(res, 200, apiResourceList(gv), output);
  }
  if (segments.length === 1) {
    const group = segments[0] === '' ? undefined : (surface.group(segments[0]!) ?? remote?.group(segments[0]!));
    if (group === undefined) throw pageNotFound();
    return writeObject(res, 200, apiGroup(group), output);
  }
  // A version of a group only aggregated API servers serve, that none of them serves (served ones were proxied).
  if (segments[0] !== '' && surface.group(segments[0]!) === undefined && remote?.group(segments[0]!) !== undefined) throw pathNotFound();
  // A group nothing serves has no handler at all in kube (plain 404); a served group's unknown version is a Status.
  if (segments[0] === '' || surface.group(segments[0]!) === undefined) throw pageNotFound();
  const gv = segments.length === 2 && segments[0] !== '' ? surface.groupVersion(segments[0]!, segments[1]!) : undefined;
  if (gv === undefined) throw pathNotFound();
  refuseHead(req);
  writeObject(res, 200, apiResourceList(gv), output);
}
