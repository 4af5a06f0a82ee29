# Generation Gateway: the custom server (public API without Next's per-request cost) and the
# console, from a full build. Next's `standalone` output would drop server.ts, so it is not
# used here (docs/deploy.md). NODE_IMAGE swaps the base (any Debian-based image with Node 22 or
# 24 and a `node` user), e.g. one built locally where no registry of images can be reached.
# Node 22 as package.json's engines, CI's PostgreSQL pass and Vercel (which reads engines) use.
ARG NODE_IMAGE=node:22-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN NODE_ENV=production npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--import", "tsx", "scripts/start.ts"]
