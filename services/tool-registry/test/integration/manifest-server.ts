import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type Route = (respond: (status: number, body: string, headers?: Record<string, string>) => void) => void;

/** A real HTTP server playing tool sources, each route a behaviour the registry must cope with. */
export class ManifestServer {
  readonly routes = new Map<string, Route>();
  private server: Server | undefined;
  port = 0;

  json(path: string, body: unknown): void {
    this.routes.set(path, (respond) => respond(200, JSON.stringify(body), { "content-type": "application/json" }));
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const route = this.routes.get(request.url ?? "");
      if (!route) {
        response.writeHead(404).end();
        return;
      }
      route((status, body, headers = {}) => {
        if (!response.destroyed) response.writeHead(status, headers).end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
