# One image for the API and the worker (the command picks the role). stack/prod-build.sh builds
# what goes into /app, the same way test/integration/production-install.test.ts builds the tree it
# starts, the operator console's static files included (/app/dist/console, served at /console);
# the embedding model is fetched at build time, so uploads work without a volume.
ARG NODE_MAJOR=24

FROM maven:3.9-eclipse-temurin-21 AS model
WORKDIR /src
COPY stack/lib.sh stack/prod-build.sh stack/
RUN bash stack/prod-build.sh model /model

FROM node:${NODE_MAJOR}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN bash stack/prod-build.sh app /app

FROM node:${NODE_MAJOR}-bookworm-slim
ENV NODE_ENV=production \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js \
    EMBEDDING_MODEL_DIR=/app/models/all-minilm-l6-v2
WORKDIR /app
COPY --from=build /app ./
COPY --from=model /model ./models/all-minilm-l6-v2
USER node
EXPOSE 9380
CMD ["node", "dist/api/main.js"]
