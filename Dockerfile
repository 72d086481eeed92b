# syntax=docker/dockerfile:1
# The kapi-apiserver image: `docker build -t kapi-apiserver:0.1.0 .`
#   docker run --rm -p 6443:6443 kapi-apiserver:0.1.0 --etcd-servers=http://etcd:2379
# The same image runs the load balancer of deploy/docker-compose.yml
# (`--entrypoint node ... /opt/kapi/deploy/lb.mjs`). Stages:
#   build   — npm ci (all workspaces, dev dependencies included), tsc -b of the server's packages
#             and the server bundled into one file (dist/bundle, scripts/bundle-apiserver.mjs)
#   deps    — production dependencies of @kapi/apiserver only (npm ci --omit=dev --workspace)
#   runtime — node:20-slim, the compiled packages without tests, non-root user `node` (uid 1000)
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Manifests first: the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
COPY packages/catalog/package.json packages/catalog/
COPY packages/machinery/package.json packages/machinery/
COPY packages/cel/package.json packages/cel/
COPY packages/storage/package.json packages/storage/
COPY packages/watch-cache/package.json packages/watch-cache/
COPY packages/registry/package.json packages/registry/
COPY packages/controllers/package.json packages/controllers/
COPY packages/apiserver/package.json packages/apiserver/
COPY packages/bench/package.json packages/bench/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY packages/catalog packages/catalog
COPY packages/machinery packages/machinery
COPY packages/cel packages/cel
COPY packages/storage packages/storage
COPY packages/watch-cache packages/watch-cache
COPY packages/registry packages/registry
COPY packages/controllers packages/controllers
COPY packages/apiserver packages/apiserver
COPY scripts/bundle-apiserver.mjs scripts/
RUN npx tsc -b packages/apiserver \
 && node scripts/bundle-apiserver.mjs \
 && find packages -path '*/dist/*' \( -name '*.test.js' -o -name '*.test.d.ts' -o -name '.tsbuildinfo' \) -delete

FROM ${NODE_IMAGE} AS deps
WORKDIR /opt/kapi
COPY package.json package-lock.json ./
COPY packages/catalog/package.json packages/catalog/
COPY packages/machinery/package.json packages/machinery/
COPY packages/cel/package.json packages/cel/
COPY packages/storage/package.json packages/storage/
COPY packages/watch-cache/package.json packages/watch-cache/
COPY packages/registry/package.json packages/registry/
COPY packages/controllers/package.json packages/controllers/
COPY packages/apiserver/package.json packages/apiserver/
COPY packages/bench/package.json packages/bench/
COPY e2e/package.json e2e/
RUN npm ci --omit=dev --no-audit --no-fund --workspace=@kapi/apiserver \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# kapi-apiserver starts from the bundle with a V8 code cache, written here by the first start
# (a volume or emptyDir there keeps it across container restarts).
ENV KAPI_CODE_CACHE_DIR=/var/cache/kapi
WORKDIR /opt/kapi
COPY --from=deps /opt/kapi/package.json ./
# Workspace packages are symlinks (node_modules/@kapi/* -> ../../packages/*), resolved below.
COPY --from=deps /opt/kapi/node_modules node_modules
# The catalogue's generated data is read at run time (JSON next to dist/).
COPY --from=build /src/packages/catalog/package.json packages/catalog/
COPY --from=build /src/packages/catalog/dist packages/catalog/dist
COPY --from=build /src/packages/catalog/generated packages/catalog/generated
COPY --from=build /src/packages/machinery/package.json packages/machinery/
COPY --from=build /src/packages/machinery/dist packages/machinery/dist
COPY --from=build /src/packages/cel/package.json packages/cel/
COPY --from=build /src/packages/cel/dist packages/cel/dist
COPY --from=build /src/packages/storage/package.json packages/storage/
COPY --from=build /src/packages/storage/dist packages/storage/dist
COPY --from=build /src/packages/watch-cache/package.json packages/watch-cache/
COPY --from=build /src/packages/watch-cache/dist packages/watch-cache/dist
COPY --from=build /src/packages/registry/package.json packages/registry/
COPY --from=build /src/packages/registry/dist packages/registry/dist
COPY --from=build /src/packages/controllers/package.json packages/controllers/
COPY --from=build /src/packages/controllers/dist packages/controllers/dist
COPY --from=build /src/packages/apiserver/package.json packages/apiserver/
COPY --from=build /src/packages/apiserver/dist packages/apiserver/dist
COPY --from=build /src/packages/apiserver/bin packages/apiserver/bin
# The balancer, the health check and the etcd certificate scripts of deploy/docker-compose.yml.
COPY deploy/lb.mjs deploy/healthcheck.mjs deploy/etcd-certs.mjs deploy/
RUN chmod 0755 packages/apiserver/bin/kapi-apiserver.js \
 && ln -s /opt/kapi/packages/apiserver/bin/kapi-apiserver.js /usr/local/bin/kapi-apiserver \
 && mkdir -p /var/lib/kapi/certs /var/run/kubernetes /var/cache/kapi \
 && chown -R node:node /var/lib/kapi /var/run/kubernetes /var/cache/kapi
# The pair generated on first start lands in a volume mounted at /var/lib/kapi/certs (--cert-dir).
VOLUME ["/var/lib/kapi/certs"]
USER node
EXPOSE 6443
HEALTHCHECK --interval=5s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "/opt/kapi/deploy/healthcheck.mjs", "https://127.0.0.1:6443/readyz"]
ENTRYPOINT ["kapi-apiserver"]
CMD ["--help"]
