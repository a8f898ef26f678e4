"""Catch the index up with the feed read by a second process, in a subprocess (for kill tests)."""

from origin_search import open_searcher
from origin_search.catchup import catch_up
from origin_store import Settings, Store

if __name__ == "__main__":
    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        print(catch_up(store, open_searcher(store, settings.home / "index").index, apart_from=1))
    finally:
        store.close()
