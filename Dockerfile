# syntax=docker/dockerfile:1
# reviewbot's container image (CONTRACT §1): the webhook server (`reviewbot serve`) and the cluster
# Job pods (`reviewbot run-job`) run the same image.
#
#   docker build -t reviewbot .                                         # full: every provider + the
#                                                                       #   code-agent CLI SDK
#   docker build --build-arg PROVIDER=anthropic -t reviewbot-anthropic . # single provider: no optional
#                                                                       #   SDK, much smaller
ARG NODE_IMAGE=node:22-slim

# Compile TypeScript (dev dependencies only live here).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

# Production dependencies: `all` keeps the optional Claude Code SDK, a single provider omits it
# and keeps only its own AI SDK provider package (reviewbot loads just the configured one).
FROM ${NODE_IMAGE} AS deps
ARG PROVIDER=all
WORKDIR /app
COPY package.json package-lock.json ./
RUN if [ "$PROVIDER" = "all" ]; then \
      npm ci --omit=dev --ignore-scripts --no-audit --no-fund; \
    else \
      npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund; \
    fi \
 && npm cache clean --force
RUN case "$PROVIDER" in \
      all) keep="" ;; \
      anthropic|openai|google) keep="$PROVIDER" ;; \
      deepseek|groq|together|fireworks|openrouter|openai-compatible) keep=openai-compatible ;; \
      *) echo "unknown PROVIDER=$PROVIDER" >&2; exit 1 ;; \
    esac; \
    if [ -n "$keep" ]; then \
      for p in anthropic openai google openai-compatible; do \
        [ "$p" = "$keep" ] || rm -rf "node_modules/@ai-sdk/$p"; \
      done; \
    fi

FROM ${NODE_IMAGE}
ARG PROVIDER=all
# bubblewrap: the sandbox of every agent tool subprocess (CONTRACT §16).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates bubblewrap \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# As the CLI's shebang: glibc's mmap threshold fixed at 64 KiB, so memory returns after large bodies.
ENV GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536
WORKDIR /app
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# `reviewbot` on PATH, so a Job's `command: ["reviewbot", "run-job"]` works; with the Node flags of
# the CLI's shebang (src/cli/index.ts).
RUN printf '#!/bin/sh\nexec node --max-semi-space-size=8 /app/dist/src/cli/index.js "$@"\n' > /usr/local/bin/reviewbot \
 && chmod 0755 /usr/local/bin/reviewbot
LABEL org.opencontainers.image.title="reviewbot" \
      org.opencontainers.image.description="Self-hosted pull-request review bot (provider: ${PROVIDER})" \
      org.opencontainers.image.licenses="MIT"
# The `node` user of the base image; numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080
ENTRYPOINT ["reviewbot"]
CMD ["serve"]
