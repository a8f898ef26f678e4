"""Run one ingest pass of the notes test format in a subprocess (for kill and race tests)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from rows_format import NOTES

from origin_store import Ingester, Settings, Store

if __name__ == "__main__":
    settings = Settings.from_env()
    store = Store.open(settings.home, map_size=settings.map_size)
    try:
        Ingester(store, settings, {"notesdb": NOTES}).run()
    finally:
        store.close()
