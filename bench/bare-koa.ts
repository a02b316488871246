import Koa from 'koa';

/**
 * The baseline: a bare Koa app answering one fixed JSON body and nothing else. BENCH_BODY (a JSON
 * text) sets the body, so the baseline can send the same bytes as the route it is compared with.
 */
const body: unknown = JSON.parse(process.env.BENCH_BODY ?? '{"code":0,"data":{},"message":"ok"}');
const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
