"""Run one ingest pass with every registered agent in a subprocess (for kill tests)."""

from origin_store import Ingester, Settings, Store
from origin_store.parsers.registry import SOURCES

if __name__ == "__main__":
    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        Ingester(store, settings, SOURCES).run()
    finally:
        store.close()
