/**
 * TLS to a backend behind a Service (an aggregated API server, an admission webhook): trust
 * the object's `caBundle` (or skip verification when it says `insecureSkipTLSVerify`), expect
 * the Service's DNS name (`<name>.<namespace>.svc`) in the certificate, and present the
 * front-proxy client certificate (--proxy-client-cert-file/--proxy-client-key-file) when the
 * server has one. Keep-alive agents are shared per distinct configuration.
 */
import { Agent } from 'node:https';

/** The front-proxy client certificate and key (PEM). */
export interface ClientCertificate {
  readonly cert: string;
  readonly key: string;
}

export interface BackendTls {
  /** The object's caBundle as it is in JSON (base64 of a PEM bundle); absent: the system roots. */
  readonly caBundle?: string;
  readonly insecureSkipTLSVerify?: boolean;
  /** The name the certificate must hold (and the SNI sent); see serviceServerName. */
  readonly serverName: string;
}

/** Decodes an API object's base64 `caBundle`; undefined when empty. */
export function decodeCaBundle(caBundle: string | undefined): string | undefined {
  if (caBundle === undefined || caBundle === '') return undefined;
  const pem = Buffer.from(caBundle, 'base64').toString('utf8');
  return pem === '' ? undefined : pem;
}

export interface BackendAgents {
  /** The agent for `tls` (created on first use; shared afterwards). */
  agentFor(tls: BackendTls): Agent;
  /** The front-proxy client certificate every agent presents, if any. */
  readonly clientCertificate: ClientCertificate | undefined;
  /** Closes every pooled connection. */
  destroy(): void;
}

/** Agents presenting `clientCertificate`; at most `maxAgents` kept (the oldest is closed first). */
export function createBackendAgents(clientCertificate: ClientCertificate | undefined, maxAgents = 256): BackendAgents {
  const agents = new Map<string, Agent>();
  return {
    clientCertificate,
    agentFor(tls) {
      const key = JSON.stringify([tls.caBundle ?? '', tls.insecureSkipTLSVerify === true, tls.serverName]);
      let agent = agents.get(key);
      if (agent !== undefined) return agent;
      const ca = decodeCaBundle(tls.caBundle);
      agent = new Agent({
        keepAlive: true,
        servername: tls.serverName,
        rejectUnauthorized: tls.insecureSkipTLSVerify !== true,
        ...(ca !== undefined ? { ca } : {}),
        ...(clientCertificate !== undefined ? { cert: clientCertificate.cert, key: clientCertificate.key } : {}),
        // Go's transport offers HTTP/1.1 to a proxied backend as well (upgrades need it).
        ALPNProtocols: ['http/1.1'],
      } as ConstructorParameters<typeof Agent>[0]);
      agents.set(key, agent);
      if (agents.size > maxAgents) {
        const [oldestKey, oldest] = agents.entries().next().value as [string, Agent];
        agents.delete(oldestKey);
        oldest.destroy();
      }
      return agent;
    },
    destroy() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
