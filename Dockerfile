# syntax=docker/dockerfile:1
# One image for every stsfleet service; the first argument selects it:
#   docker run IMAGE watcher|actor|pvc-provisioner|status-writer|kube-sim [flags]
# The TypeScript sources are compiled to one ESM bundle per service in the build stage (esbuild, already a dev
# dependency through tsx); the final stage holds Node, the production node_modules and the bundles, nothing else.
# Why bundles and not tsx at run time: docs/adr/0060-container-image.md.

# Keep the Node line in step with the `node` devDependency (docs/adr/0001-node-22-pinned-as-a-dev-dependency.md).
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# No install scripts: the `node` devDependency would fetch a second Node binary, and esbuild's platform binary
# arrives as an optional dependency without one.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY protocol ./protocol
COPY services ./services
COPY tools ./tools
COPY deploy/docker ./deploy/docker
RUN node deploy/docker/bundle.mjs --outdir /out

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf /root/.npm

FROM ${NODE_IMAGE} AS runtime
# npm, npx, corepack and yarn are build tools; a running controller needs none of them.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /out ./dist
# The image's `node` user, by number so that Kubernetes can verify runAsNonRoot.
USER 1000:1000
# Metrics and probes (--metrics-bind-address, --health-probe-bind-address).
EXPOSE 8080 8081
# Kubernetes ignores this and uses the manifests' probes; compose overrides it per service.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/dist/stsfleet.mjs", "healthcheck"]
ENTRYPOINT ["node", "/app/dist/stsfleet.mjs"]
CMD ["--help"]
