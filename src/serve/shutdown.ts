/**
 * Prompt shutdown. Closing the service lets requests in flight finish (Fastify's close with
 * return503OnClosing), but keep-alive connections with no request on them must not hold it
 * open: Fastify keeps them for 72 s (its keepAliveTimeout), and Node's own idle reaping at
 * server.close() was seen to miss connections that had served a request after a client
 * dropped an event stream. So the service keeps its own count of requests per connection:
 * at close, connections without one are ended at once, and the others as soon as their last
 * response is done.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export function closeIdleOnShutdown(app: FastifyInstance): void {
  const active = new Map<Socket, number>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    active.set(socket, 0);
    socket.once('close', () => active.delete(socket));
  });
  app.server.on('request', (req, res) => {
    const socket = req.socket;
    active.set(socket, (active.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (active.get(socket) ?? 1) - 1;
      active.set(socket, left);
      if (closing && left === 0) socket.destroySoon();
    });
  });
  app.addHook('preClose', (done) => {
    closing = true;
    for (const [socket, n] of active) if (n === 0) socket.destroySoon();
    done();
  });
}
