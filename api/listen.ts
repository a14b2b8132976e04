import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';

/** Starts serving; a taken port is reported as such rather than as a bare EADDRINUSE stack. */
export function listen(
  app: express.Application,
  port: number,
  host = '127.0.0.1',
): Promise<{ server: Server; url: string }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ server, url: `http://${shownHost}:${address.port}` });
    });
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(
          new Error(
            `port ${port} on ${host} is already in use: stop what holds it or set PORT to another port`,
          ),
        );
      } else {
        reject(err);
      }
    });
  });
}
