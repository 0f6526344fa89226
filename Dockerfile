# Portcullis: build dist/ in one stage, run it in a slim one as a non-root user.
# Two editions (docs/editions.md): the Community image is the default (the last stage, `community`);
# the Pro image adds the Pro packages' builds (pro/<name>/dist) and starts with EDITION=pro:
#   docker build -t portcullis .                         (Community; also --target community)
#   docker build --target pro -t portcullis-pro .        (Pro)
#   docker run -d --name portcullis -p 8080:8080 -v portcullis-data:/var/lib/portcullis portcullis
#   docker logs portcullis   (the first start prints the administrator's one-time password)
# The push-MFA service is its own image from the same file (its stage below; the core stays the default, last stage):
#   docker build --target push-service -t portcullis-push .
#   docker run -d --name portcullis-push -p 8090:8090 -v portcullis-push-data:/var/lib/portcullis-push \
#     -e PUSH_CORE_URL=http://portcullis:8080 -e PUSH_SHARED_KEY_FILE=/run/secrets/push_key \
#     -e PUSH_VAPID_SUBJECT=mailto:noc@example.org portcullis-push
# The configuration collector too (docs/ncm.md, "The collector"): enroll once, then run.
#   docker build --target collector -t portcullis-collector .
#   docker run --rm -v portcullis-collector:/var/lib/portcullis-collector portcullis-collector \
#     enroll --core https://portcullis.example.org --token pcc_… --name dc1
#   docker run -d --name portcullis-collector -v portcullis-collector:/var/lib/portcullis-collector portcullis-collector

# ---- build: all dependencies (tsup and Vite are devDependencies), then the console (ui/dist) and dist/
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:ui && npx tsup && npm run build:pro

# ---- push-service: the push-MFA service alone (docs/push-mfa.md). It runs dist/push and the signed
# channel (dist/sdk/signed-request.js) and the request-input helpers (dist/sdk/http-input.js), nothing else of the platform, and keeps only its VAPID keys on disk.
FROM node:20-bookworm-slim AS push-service
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/push ./dist/push
COPY --from=build /app/dist/sdk/signed-request.js ./dist/sdk/signed-request.js
COPY --from=build /app/dist/sdk/http-input.js ./dist/sdk/http-input.js
RUN groupadd --system portcullis-push \
 && useradd --system --gid portcullis-push --home-dir /var/lib/portcullis-push --shell /usr/sbin/nologin portcullis-push \
 && mkdir -p /var/lib/portcullis-push \
 && chown portcullis-push:portcullis-push /var/lib/portcullis-push \
 && chmod 0700 /var/lib/portcullis-push
# The generated VAPID keys (vapid.json) live in PUSH_DATA_DIR: mount a volume there, or give
# PUSH_VAPID_PUBLIC_KEY and PUSH_VAPID_PRIVATE_KEY. PUSH_CORE_URL, PUSH_SHARED_KEY (or _FILE) and
# PUSH_VAPID_SUBJECT have no default: the service refuses to start without them.
ENV PUSH_HOST=0.0.0.0 \
    PUSH_PORT=8090 \
    PUSH_DATA_DIR=/var/lib/portcullis-push
VOLUME ["/var/lib/portcullis-push"]
USER portcullis-push
EXPOSE 8090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "require('http').get('http://127.0.0.1:'+(process.env.PUSH_PORT||8090)+'/healthz',{timeout:4000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',function(){this.destroy();process.exit(1)})"]
CMD ["node", "dist/push/main.js"]

# ---- collector: the configuration collector alone (docs/ncm.md). It runs dist/collector and the SDK's
# wire files (signatures, the protocol and envelope, the safe-regex dialect), nothing else of the platform.
# Its state folder holds its keys (collector.json, 0600), never a device credential.
FROM node:20-bookworm-slim AS collector
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/collector ./dist/collector
COPY --from=build /app/dist/sdk/http-signatures.js /app/dist/sdk/collector-protocol.js /app/dist/sdk/safe-regex.js /app/dist/sdk/safe-regex-parse.js ./dist/sdk/
RUN groupadd --system portcullis-collector \
 && useradd --system --gid portcullis-collector --home-dir /var/lib/portcullis-collector --shell /usr/sbin/nologin portcullis-collector \
 && mkdir -p /var/lib/portcullis-collector \
 && chown portcullis-collector:portcullis-collector /var/lib/portcullis-collector \
 && chmod 0700 /var/lib/portcullis-collector
ENV PORTCULLIS_COLLECTOR_STATE=/var/lib/portcullis-collector
VOLUME ["/var/lib/portcullis-collector"]
USER portcullis-collector
# No port: the collector only calls out (to the core over HTTPS, to the devices over SSH).
# SIGTERM (docker stop) lets running jobs finish for 10 s.
ENTRYPOINT ["node", "dist/collector/main.js"]
CMD ["run"]

# ---- runtime: production dependencies and dist/ only (the Community edition: nothing of pro/); tsx is
# not here, so the image runs dist/. The two targets below start from it.
FROM node:20-bookworm-slim AS core
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# argon2 ships prebuilt binaries for linux x64/arm64 (glibc): no compiler needed.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The admin console, built: plugins/console serves it at / (nothing of Vite or React is needed at run time).
COPY --from=build /app/ui/dist ./ui/dist
# The embedded engine's pristine cluster, made once in the image: a first start copies it instead of
# running initdb in WebAssembly for seconds (kernel/db/embedded.ts).
RUN node --input-type=module -e "await (await import('./dist/kernel/db/embedded.js')).ensureTemplate()"

RUN groupadd --system portcullis \
 && useradd --system --gid portcullis --home-dir /var/lib/portcullis --shell /usr/sbin/nologin portcullis \
 && mkdir -p /var/lib/portcullis \
 && chown portcullis:portcullis /var/lib/portcullis \
 && chmod 0700 /var/lib/portcullis

# The embedded database, the generated master.key and node_id live in DATA_DIR:
# mount a volume there. With DATABASE_URL, give MASTER_KEY (or MASTER_KEY_FILE) too.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/portcullis
VOLUME ["/var/lib/portcullis"]

USER portcullis
EXPOSE 8080

# Liveness through Node itself: the slim image has no curl or wget.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "require('http').get('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz',{timeout:4000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',function(){this.destroy();process.exit(1)})"]

# SIGTERM (docker stop) drains in-flight requests for up to SHUTDOWN_TIMEOUT_MS (10 s by default,
# the same as docker stop's grace period; raise --stop-timeout if you raise it).
CMD ["node", "dist/kernel/main.js"]

# ---- pro: the Pro edition. The core image and the Pro packages' builds (pro/<name>/dist with their
# package.json), loaded from the project root through the out-of-tree plugin mechanism; their npm
# dependencies are the server's own (already installed above).
FROM core AS pro
USER root
# The reports' PDFs are set in DejaVu Sans (Cyrillic included: pro/reports/render/pdf.ts reads it from the system's fonts).
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends fonts-dejavu-core >/dev/null && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/pro /tmp/pro
RUN for d in /tmp/pro/*/; do \
      [ -f "$d/package.json" ] || continue; n=$(basename "$d"); \
      mkdir -p "pro/$n" && cp "$d/package.json" "pro/$n/" && cp -r "$d/dist" "pro/$n/dist"; \
    done && rm -rf /tmp/pro
USER portcullis
ENV EDITION=pro

# ---- community (the default target: the last stage): the core image as it is.
FROM core AS community
