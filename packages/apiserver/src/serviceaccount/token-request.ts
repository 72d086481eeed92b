/**
 * The `serviceaccounts/<name>/token` subresource (kube's TokenREST): POST an
 * authentication.k8s.io/v1 TokenRequest, get it back with a signed token in its status. The
 * service account — and the pod, secret or node the token is bound to — must exist (404
 * otherwise; 409 when the bound object's uid differs). Nothing is stored.
 */
import { badRequest, conflict, fieldInvalid, invalid, newUID, notFound, type FieldError, type KubeObject } from '@kapi/machinery';
import type { NamedCreater, RequestContext, RestSubresource } from '@kapi/registry';
import type { SigningKey } from './keys.js';
import { signJwt, type Claims } from './jwt.js';
import { serviceAccountUsername } from './token-authenticator.js';

/** What the kubelet asks for: its tokens are extended when --service-account-extend-token-expiration is on. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
/** How long an extended token lasts (a year). */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
const TOKEN_REQUEST = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/** Reads one object through the registry (a quorum read); undefined when absent. */
export type ObjectReader = (plural: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes', namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface TokenIssuer {
  readonly signingKey: SigningKey;
  /** The first --service-account-issuer. */
  readonly issuer: string;
  readonly apiAudiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0 = none. */
  readonly maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  readonly extendExpiration: boolean;
}

type Body = Record<string, unknown>;
const rec = (value: unknown): Body | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : undefined);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A signed token for `serviceAccount` (see kube's serviceaccount.Claims). */
export function issueToken(issuer: TokenIssuer, serviceAccount: KubeObject, options: {
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly warnAfterSeconds?: number;
  readonly pod?: KubeObject;
  readonly secret?: KubeObject;
  readonly node?: { readonly name: string; readonly uid: string };
  readonly nowSeconds: number;
}): string {
  const namespace = serviceAccount.metadata.namespace ?? '';
  const name = serviceAccount.metadata.name ?? '';
  const ref = (obj: KubeObject | { name: string; uid: string }) => ('metadata' in obj ? { name: obj.metadata.name ?? '', uid: str(obj.metadata.uid) } : { name: obj.name, ...(obj.uid !== '' ? { uid: obj.uid } : {}) });
  const k8s: Claims = { namespace, serviceaccount: ref(serviceAccount) };
  if (options.pod !== undefined) k8s['pod'] = ref(options.pod);
  if (options.secret !== undefined) k8s['secret'] = ref(options.secret);
  if (options.node !== undefined) k8s['node'] = ref(options.node);
  if (options.warnAfterSeconds !== undefined && options.warnAfterSeconds > 0) k8s['warnafter'] = options.nowSeconds + options.warnAfterSeconds;
  return signJwt(issuer.signingKey, {
    aud: [...options.audiences],
    exp: options.nowSeconds + options.expirationSeconds,
    iat: options.nowSeconds,
    iss: issuer.issuer,
    jti: newUID(),
    'kubernetes.io': k8s,
    nbf: options.nowSeconds,
    sub: serviceAccountUsername(namespace, name),
  });
}

function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function validate(spec: Body): FieldError[] {
  const errors: FieldError[] = [];
  const seconds = spec['expirationSeconds'];
  if (typeof seconds === 'number') {
    if (seconds < MIN_EXPIRATION_SECONDS) errors.push(fieldInvalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > MAX_EXPIRATION_SECONDS) errors.push(fieldInvalid('spec.expirationSeconds', seconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  return errors;
}

/** Admission of a TokenRequest as posted (kube's mutating admission runs before the REST create); throws a StatusError to refuse. */
export type TokenRequestAdmission = (ctx: RequestContext, name: string, body: unknown) => void;

export function tokenRequestSubresource(issuer: TokenIssuer, read: ObjectReader, admit?: TokenRequestAdmission): RestSubresource {
  const creater: NamedCreater = {
    async create(ctx: RequestContext, name: string, raw: unknown, options) {
      const body = rec(raw);
      if (body === undefined) throw badRequest('not a TokenRequest');
      admit?.(ctx, name, body);
      const namespace = ctx.namespace;
      const metadata = rec(body['metadata']) ?? {};
      if (str(metadata['name']) !== '' && metadata['name'] !== name) {
        throw invalid(TOKEN_REQUEST, name, [fieldInvalid('metadata.name', metadata['name'], 'must match the service account name if specified')]);
      }
      if (str(metadata['namespace']) !== '' && metadata['namespace'] !== namespace) {
        throw invalid(TOKEN_REQUEST, name, [fieldInvalid('metadata.namespace', metadata['namespace'], 'must match the service account namespace if specified')]);
      }
      const serviceAccount = await read('serviceaccounts', namespace, name);
      if (serviceAccount === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, name);
      const spec: Body = { ...(rec(body['spec']) ?? {}) };
      if (!Array.isArray(spec['audiences']) || spec['audiences'].length === 0) spec['audiences'] = [...issuer.apiAudiences];
      if (spec['expirationSeconds'] === undefined || spec['expirationSeconds'] === null) spec['expirationSeconds'] = 3600;
      const nowSeconds = Math.floor(Date.now() / 1000);
      const errors = validate(spec);
      if (errors.length > 0) throw invalid(TOKEN_REQUEST, '', errors);
      let pod: KubeObject | undefined;
      let secret: KubeObject | undefined;
      let node: { name: string; uid: string } | undefined;
      const boundRef = rec(spec['boundObjectRef']);
      if (boundRef !== undefined) {
        const kind = str(boundRef['kind']);
        const apiVersion = str(boundRef['apiVersion']);
        const refName = str(boundRef['name']);
        const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
        let uid = '';
        if (group === '' && kind === 'Pod') {
          pod = await read('pods', namespace, refName);
          if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, refName);
          const podSpec = rec(pod['spec']) ?? {};
          if (str(podSpec['serviceAccountName']) !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
          uid = str(pod.metadata.uid);
          const nodeName = str(podSpec['nodeName']);
          if (nodeName !== '') {
            const found = await read('nodes', '', nodeName);
            node = { name: nodeName, uid: found === undefined ? '' : str(found.metadata.uid) };
          }
        } else if (group === '' && kind === 'Node') {
          const found = await read('nodes', '', refName);
          if (found === undefined) throw notFound({ group: '', resource: 'nodes' }, refName);
          node = { name: refName, uid: str(found.metadata.uid) };
          uid = node.uid;
        } else if (group === '' && kind === 'Secret') {
          secret = await read('secrets', namespace, refName);
          if (secret === undefined) throw notFound({ group: '', resource: 'secrets' }, refName);
          uid = str(secret.metadata.uid);
        } else {
          const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
          // Go's GroupVersionKind.String(): `<group>/<version>, Kind=<kind>` (an empty group leaves the slash).
          throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
        }
        if (str(boundRef['uid']) !== '' && str(boundRef['uid']) !== uid) {
          throw conflict({ group, resource: kind }, refName, `the UID in the bound object reference (${str(boundRef['uid'])}) does not match the UID in record. The object might have been deleted and then recreated`);
        }
      }
      let requested = spec['expirationSeconds'] as number;
      if (issuer.maxExpirationSeconds > 0 && requested > issuer.maxExpirationSeconds) {
        options.warn?.(`requested expiration of ${requested} seconds shortened to ${issuer.maxExpirationSeconds} seconds`);
        requested = issuer.maxExpirationSeconds;
        spec['expirationSeconds'] = requested;
      }
      const audiences = (spec['audiences'] as unknown[]).map(str);
      let expirationSeconds = requested;
      let warnAfterSeconds: number | undefined;
      const kubeAudiences = audiences.every((a) => issuer.apiAudiences.includes(a));
      if (issuer.extendExpiration && pod !== undefined && requested === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && kubeAudiences) {
        warnAfterSeconds = requested;
        expirationSeconds = EXPIRATION_EXTENSION_SECONDS;
      }
      const token = issueToken(issuer, serviceAccount, {
        audiences, expirationSeconds, nowSeconds,
        ...(warnAfterSeconds !== undefined ? { warnAfterSeconds } : {}),
        ...(pod !== undefined ? { pod } : {}),
        ...(secret !== undefined ? { secret } : {}),
        ...(node !== undefined ? { node } : {}),
      });
      return {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { ...metadata, name, namespace, creationTimestamp: rfc3339(nowSeconds) },
        spec,
        status: { token, expirationTimestamp: rfc3339(nowSeconds + requested) },
      } as unknown as KubeObject;
    },
  };
  return { name: 'token', creater, kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } };
}
