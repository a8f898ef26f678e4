"""One ingest pass of the plain test format in a subprocess, with dictionaries due after a few
hundred events (a real store's are after thousands), for race and kill tests of training."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from plain_format import PLAIN

from origin_store import Ingester, Settings, Store
from origin_store.core import codec

if __name__ == "__main__":
    codec.GENERATIONS = (300, 3000)
    codec.SAMPLE_BYTES = 30_000
    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        Ingester(store, settings, {"plain": PLAIN}).run()
    finally:
        store.close()
