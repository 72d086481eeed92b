/** Subresources with roles of their own: named creates (pods/binding, pods/eviction) and connects (log, exec, proxies). */
import type { Connecter, NamedCreater } from '@kapi/registry';
import { formatApiVersion, yieldIfBusy } from '@kapi/machinery';
import { readObjectBody } from '../body/object-body.js';
import { writeObject, writeText } from '../http/respond.js';
import { writeWebSocketError } from '../http/websocket-error.js';
import { parseWriteOptions } from './options.js';
import type { RequestScope } from './scope.js';
import { bodyTarget } from './write.js';

/**
 * POST `<name>/<subresource>`: the body decodes as the subresource's kind; the answer is
 * written with 201, or, when it is a Status with a code (kube's eviction answers a 500
 * Status for a pod with several budgets), with that code.
 */
export async function handleNamedCreate(
  scope: RequestScope,
  creater: NamedCreater,
  kind: { group: string; version: string; kind: string } | undefined,
): Promise<void> {
  const options = parseWriteOptions(scope.query, 'CreateOptions', (m) => scope.warnings.push(m));
  const target = kind === undefined ? bodyTarget(scope) : bodyTarget(scope, kind.kind, formatApiVersion(kind.group, kind.version));
  const { body } = await readObjectBody(scope.req, target, options.fieldValidation === 'Strict');
  const answer = await creater.create(scope.context, scope.info.name, body, options);
  await yieldIfBusy();
  const code = answer.kind === 'Status' && typeof answer['code'] === 'number' && answer['code'] !== 0 ? answer['code'] : 201;
  writeObject(scope.res, code, answer, scope.output.encoding, { warnings: scope.warnings });
}

/** The upgrade a request asks for (kube's httpstream.IsUpgradeRequest, then the protocol). */
function upgradeOf(headers: RequestScope['req']['headers']): '' | 'spdy' | 'websocket' {
  if (!/(^|,)\s*upgrade\s*(,|$)/i.test(String(headers.connection ?? ''))) return '';
  const upgrade = String(headers.upgrade ?? '').toLowerCase();
  if (upgrade === '') return '';
  return upgrade === 'websocket' ? 'websocket' : 'spdy';
}

/** A connect-style subresource: the connecter answers (or throws the Status to send). */
export async function handleConnect(scope: RequestScope, connecter: Connecter): Promise<void> {
  const upgrade = upgradeOf(scope.req.headers);
  const protocols = String(scope.req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (!scope.req.complete) scope.req.resume();
  const verb = scope.info.verb as 'get' | 'create' | 'update' | 'patch' | 'delete';
  const answer = await connecter.connect(scope.context, scope.info.name, { verb, query: scope.query, path: '', upgrade, protocols });
  if ('websocket' in answer) writeWebSocketError(scope.req, scope.res, answer.websocket);
  else writeText(scope.res, 200, answer.body, answer.contentType);
}
