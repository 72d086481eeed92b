/**
 * Service accounts as kube-apiserver provides them, assembled for the composition root: keys
 * read at start, the token authenticator, the `serviceaccounts/token` subresource, issuer
 * discovery routes, the ServiceAccount admission plugin's reads, and what kube-controller-
 * manager's service account controllers (@kapi/controllers) are built from: the informers
 * and the legacy-token signer. Token issuing and checking exist only with
 * `--service-account-issuer` (kapi starts without it; kube requires it).
 */
import { networkInterfaces } from 'node:os';
import { isNotFound, type KubeObject } from '@kapi/machinery';
import type { Registry, RestSubresource } from '@kapi/registry';
import { EMPTY_OBJECT_CACHE, startObjectCache, type ControllerCaches, type ControllerInputs } from '@kapi/controllers';
import { signJwt } from './jwt.js';
import { readPublicKeys, readSigningKey, type SigningKey, type VerificationKey } from './keys.js';
import { issuerDiscoveryRoutes, type DiscoveryRoute } from './oidc-discovery.js';
import { createServiceAccountTokenAuthenticator, LEGACY_ISSUER, serviceAccountUsername, type ServiceAccountTokenAuthenticator } from './token-authenticator.js';
import { tokenRequestSubresource, type ObjectReader, type TokenRequestAdmission } from './token-request.js';

export interface ServiceAccountTokenOptions {
  /** --service-account-issuer, in order (the first signs). */
  readonly issuers: readonly string[];
  /** --service-account-key-file (repeatable). */
  readonly keyFiles: readonly string[];
  /** --service-account-signing-key-file. */
  readonly signingKeyFile: string;
  /** --api-audiences; default the issuers. */
  readonly apiAudiences?: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0 = none. */
  readonly maxExpirationSeconds?: number;
  /** --service-account-extend-token-expiration; default true. */
  readonly extendExpiration?: boolean;
  /** --service-account-jwks-uri; default `https://<external host>:<secure port>/openid/v1/jwks`. */
  readonly jwksUri?: string;
}

export interface ServiceAccountKeys {
  readonly signingKey: SigningKey;
  readonly verificationKeys: readonly VerificationKey[];
}

/** Reads the keys (at start, before anything else). Throws ServiceAccountKeyError with kube's texts. */
export function readServiceAccountKeys(options: ServiceAccountTokenOptions): ServiceAccountKeys {
  const signingKey = readSigningKey(options.signingKeyFile);
  const verificationKeys = options.keyFiles.flatMap((file) => readPublicKeys(file));
  return { signingKey, verificationKeys };
}

/** kube's advertise address when none is given: the first non-loopback IPv4 address, else the bind address. */
export function externalHost(bindAddress: string): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (!address.internal && address.family === 'IPv4') return address.address;
  }
  return bindAddress === '0.0.0.0' || bindAddress === '' ? '127.0.0.1' : bindAddress;
}

export interface ServiceAccountServices {
  /** undefined without --service-account-issuer. */
  readonly authenticator: ServiceAccountTokenAuthenticator | undefined;
  readonly apiAudiences: readonly string[];
  readonly subresources: Readonly<Record<string, readonly RestSubresource[]>>;
  readonly routes: Readonly<Record<string, DiscoveryRoute>>;
  /** Reads a service account for the ServiceAccount admission plugin (watch cache first, then a quorum read). */
  readonly readServiceAccount: (namespace: string, name: string) => Promise<KubeObject | undefined>;
  /** What kapi's service account controllers are built from (@kapi/controllers' kapiControllers). */
  readonly controllerInputs: Pick<ControllerInputs, 'serviceAccountCaches' | 'serviceAccountTokens'>;
  synced(): boolean;
  stop(): Promise<void>;
}

export interface ServiceAccountServiceOptions {
  readonly tokens?: ServiceAccountTokenOptions & ServiceAccountKeys;
  /** What kube-root-ca.crt and token Secrets carry as ca.crt (--root-ca-file, else the serving certificate); none: no publisher. */
  readonly rootCaPem?: string;
  /** The jwks_uri default, asked on first use. */
  readonly defaultJwksUri: () => string;
  readonly onError: (what: string, err: unknown) => void;
  /** --service-account-lookup (default true): tokens of deleted service accounts (or bound objects) are refused. */
  readonly lookup?: boolean;
  /** Admission of a TokenRequest's body (NodeRestriction), before anything is read. */
  readonly admitTokenRequest?: TokenRequestAdmission;
}

/** The legacy (Secret-based) token of a service account, signed with `key`. */
export function legacyToken(key: SigningKey, serviceAccount: KubeObject, secretName: string): string {
  const namespace = serviceAccount.metadata.namespace ?? '';
  const name = serviceAccount.metadata.name ?? '';
  return signJwt(key, {
    iss: LEGACY_ISSUER,
    'kubernetes.io/serviceaccount/namespace': namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': name,
    'kubernetes.io/serviceaccount/service-account.uid': String(serviceAccount.metadata.uid ?? ''),
    sub: serviceAccountUsername(namespace, name),
  });
}

/** Builds the services over the registry (which must serve core/v1). The caches start at once. */
export function startServiceAccounts(registry: Pick<Registry, 'lookup'>, options: ServiceAccountServiceOptions): ServiceAccountServices {
  const report = (what: string) => (err: unknown) => options.onError(what, err);
  const caches: ControllerCaches & { pods?: ReturnType<typeof startObjectCache>; nodes?: ReturnType<typeof startObjectCache> } = {
    namespaces: startObjectCache(registry, 'namespaces', report('namespace informer')),
    serviceAccounts: startObjectCache(registry, 'serviceaccounts', report('serviceaccount informer')),
    rootCaConfigMaps: startObjectCache(registry, 'configmaps', report('configmap informer'), 'metadata.name=kube-root-ca.crt'),
    // Secrets matter to tokens only (legacy and secret-bound ones, the token controller).
    secrets: options.tokens !== undefined ? startObjectCache(registry, 'secrets', report('secret informer')) : EMPTY_OBJECT_CACHE,
  };
  const read: ObjectReader = async (plural, namespace, name) => {
    const resource = registry.lookup('', 'v1', plural);
    if (resource?.getter === undefined) return undefined;
    try {
      return await resource.getter.get({ namespace, userAgent: 'kapi-apiserver' }, name, {});
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const tokens = options.tokens;
  const apiAudiences = tokens === undefined ? [] : tokens.apiAudiences !== undefined && tokens.apiAudiences.length > 0 ? [...tokens.apiAudiences] : [...tokens.issuers];
  let authenticator: ServiceAccountTokenAuthenticator | undefined;
  const subresources: Record<string, RestSubresource[]> = {};
  let routes: Record<string, DiscoveryRoute> = {};
  if (tokens !== undefined) {
    caches.pods = startObjectCache(registry, 'pods', report('pod informer'));
    caches.nodes = startObjectCache(registry, 'nodes', report('node informer'));
    authenticator = createServiceAccountTokenAuthenticator({
      issuers: tokens.issuers,
      keys: tokens.verificationKeys,
      apiAudiences,
      lookup: options.lookup ?? true,
      objects: { serviceAccounts: caches.serviceAccounts, secrets: caches.secrets, pods: caches.pods, nodes: caches.nodes },
    });
    subresources['/serviceaccounts'] = [tokenRequestSubresource({
      signingKey: tokens.signingKey,
      issuer: tokens.issuers[0]!,
      apiAudiences,
      maxExpirationSeconds: tokens.maxExpirationSeconds ?? 0,
      extendExpiration: tokens.extendExpiration ?? true,
    }, read, options.admitTokenRequest)];
    routes = issuerDiscoveryRoutes({ issuer: tokens.issuers[0]!, keys: tokens.verificationKeys, jwksUri: () => tokens.jwksUri ?? options.defaultJwksUri() });
  }
  const all = Object.values(caches).filter((c) => c !== undefined);
  return {
    authenticator,
    apiAudiences,
    subresources,
    routes,
    async readServiceAccount(namespace, name) {
      const cached = caches.serviceAccounts.get(namespace, name);
      return cached ?? read('serviceaccounts', namespace, name);
    },
    controllerInputs: {
      serviceAccountCaches: caches,
      ...(tokens !== undefined ? {
        serviceAccountTokens: {
          legacyToken: (account: KubeObject, secretName: string) => legacyToken(tokens.signingKey, account, secretName),
          ...(options.rootCaPem !== undefined ? { rootCaPem: options.rootCaPem } : {}),
        },
      } : {}),
    },
    synced: () => all.every((c) => c.synced()),
    async stop() {
      await Promise.all(all.map((c) => c.stop()));
    },
  };
}
