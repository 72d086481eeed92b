import { request } from 'node:https';

/**
 * The CPU profile of a kube-apiserver (Go's) or of kapi (V8's, of the worker the connection
 * reaches) over the next `seconds` (whole seconds, as Go's handler takes them):
 * `GET /debug/pprof/profile?seconds=N` (served while `--profiling` is on, its default) with
 * the bench's bearer token; the server's self-signed certificate is not checked.
 * Resolves with the gzip'd profile.proto once the server has sampled for that long; rejects on
 * a status other than 200 (with its body) or when nothing came within `seconds` + 60 s.
 */
export function fetchCpuProfile(server: { url: string; token: string }, seconds: number): Promise<Buffer> {
  const whole = Math.max(1, Math.ceil(seconds));
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/debug/pprof/profile?seconds=${whole}`, { headers: { authorization: `Bearer ${server.token}` }, rejectUnauthorized: false, timeout: (whole + 60) * 1000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (res.statusCode === 200) resolve(body);
        else reject(new Error(`GET /debug/pprof/profile: ${res.statusCode}: ${body.toString('utf8').slice(0, 500)}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET /debug/pprof/profile: no profile within ${whole + 60} s`)));
    req.on('error', reject);
    req.end();
  });
}
