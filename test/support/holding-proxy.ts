import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  /** Where clients connect instead of the upstream address. */
  address: string;
  /** Holds what clients send (their replies stay in flight); what the upstream sends still flows. */
  hold(): void;
  /** Sends what was held, in order, and lets everything flow again. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy that can hold one direction: a worker behind it still receives tasks but its
 * completions wait, so a test can keep a workflow task in flight for as long as it needs.
 */
export async function startHoldingProxy(upstream: string): Promise<HoldingProxy> {
  const [host, port] = [upstream.slice(0, upstream.lastIndexOf(':')), Number(upstream.split(':').pop())];
  const links = new Set<{ client: Socket; server: Socket; held: Buffer[] }>();
  let holding = false;
  const proxy = createServer((client) => {
    const link = { client, server: connect(port, host), held: [] as Buffer[] };
    links.add(link);
    client.on('data', (chunk: Buffer) => (holding ? link.held.push(chunk) : link.server.write(chunk)));
    link.server.pipe(client);
    const end = () => {
      links.delete(link);
      client.destroy();
      link.server.destroy();
    };
    client.on('close', end).on('error', end);
    link.server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    hold: () => void (holding = true),
    release() {
      holding = false;
      for (const link of links) for (const chunk of link.held.splice(0)) link.server.write(chunk);
    },
    async close() {
      for (const link of links) link.client.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
