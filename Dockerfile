# One image for the API and the worker (the command picks the role).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY api ./api
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY common ./common
COPY stores ./stores
COPY knowledge ./knowledge
COPY completion ./completion
COPY llm ./llm
COPY tools ./tools
COPY triggers ./triggers
COPY bench ./bench
COPY test ./test
RUN npm run build && npm run build:bundle && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 9380
CMD ["node", "dist/api/main.js"]
