"""TrustGraph 2.11.1's own config service (trustgraph-flow's `config-svc`, its request handling, pushes and
per-workspace queues unchanged) with its storage in memory instead of Cassandra, which these machines cannot
run: only `ConfigTableStore` (trustgraph/tables/config.py, the CQL behind it) is replaced, by a dict with the
same methods and the same ordering (rows by workspace, type, key, as Cassandra's clustering keys give them).

Usage: python trustgraph_config_svc.py <config-svc's own arguments> (e.g. -p pulsar://host:6650 --no-metrics)
"""
import sys
import types


def _stub_cassandra_driver() -> None:
    """The driver is imported at module load by the table store being replaced; nothing here calls it."""
    class _Unused:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("the in-memory config store does not use Cassandra")

    for name in ("cassandra", "cassandra.cluster", "cassandra.auth", "cassandra.query", "cassandra.policies"):
        module = types.ModuleType(name)
        module.__getattr__ = lambda attr: _Unused  # any class the importers name
        sys.modules.setdefault(name, module)


class MemoryConfigTableStore:
    """ConfigTableStore's methods over a dict: (workspace, type, key) -> value, and one version counter."""

    def __init__(self, *args, **kwargs):
        self.rows: dict[tuple[str, str, str], str] = {}
        self.version = 0

    def _sorted(self):
        return sorted(self.rows.items())

    async def inc_version(self):
        self.version += 1

    async def get_version(self):
        return self.version

    async def put_config(self, workspace, cls, key, value):
        self.rows[(workspace, cls, key)] = value

    async def get_value(self, workspace, cls, key):
        return self.rows.get((workspace, cls, key))

    async def get_values(self, workspace, cls):
        return [[k, v] for (w, c, k), v in self._sorted() if w == workspace and c == cls]

    async def get_values_all_ws(self, cls):
        return [(w, k, v) for (w, c, k), v in self._sorted() if c == cls]

    async def get_keys_all_ws(self, cls):
        return [(w, k) for (w, c, k), _ in self._sorted() if c == cls]

    async def get_all(self):
        return [(w, c, k, v) for (w, c, k), v in self._sorted()]

    async def get_all_for_workspace(self, workspace):
        return [(c, k, v) for (w, c, k), v in self._sorted() if w == workspace]

    async def get_keys(self, workspace, cls):
        return [k for (w, c, k), _ in self._sorted() if w == workspace and c == cls]

    async def delete_key(self, workspace, cls, key):
        self.rows.pop((workspace, cls, key), None)


if __name__ == "__main__":
    _stub_cassandra_driver()
    import trustgraph.config.service.config as configuration

    configuration.ConfigTableStore = MemoryConfigTableStore
    from trustgraph.config.service.service import run

    sys.argv[0] = "config-svc"
    run()
