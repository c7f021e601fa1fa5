import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/**
 * The pid of the local process listening on TCP `port` (Linux /proc: the socket's inode in
 * /proc/net/tcp{,6}, then the process holding it), or undefined when none of ours can be seen.
 */
export function listenerPid(port: number): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is field 1 ("0100007F:46A0"), st is field 3 ("0A" = LISTEN), inode is field 9.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A" && fields[9]) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) return Number(entry);
      } catch {
        // the fd closed meanwhile
      }
    }
  }
  return undefined;
}
