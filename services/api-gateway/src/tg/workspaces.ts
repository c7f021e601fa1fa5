import type { ConfigView } from "@toolmesh/base";
import { WorkspaceRegistry, ServiceError, ErrorType } from "@toolmesh/schema";

/**
 * The workspaces that exist: those registered in config (`__workspaces__ / workspace / <id>`), as
 * TrustGraph's gateway knows them. Requests naming another workspace are refused before they reach a
 * service (REST 404 `{"error": "workspace not found"}`, socket `workspace-not-found`), as TrustGraph does.
 */
export class KnownWorkspaces {
  constructor(private readonly view: ConfigView) {}

  /** True when `workspace` is registered; throws 503 while the registry has not been read yet. */
  has(workspace: string): boolean {
    if (!this.view.ready) {
      throw new ServiceError(ErrorType.unavailable, "the workspace registry is not loaded yet; retry shortly");
    }
    return Object.hasOwn(this.view.values(WorkspaceRegistry.type), workspace);
  }
}

/** TrustGraph's answers for a workspace that does not exist. */
export const WORKSPACE_NOT_FOUND = {
  rest: { error: "workspace not found" },
  socket: { type: "workspace-not-found", message: "workspace not found" },
} as const;
