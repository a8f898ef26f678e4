"""The store's private core: the LMDB environment, keys, the record codec, migrations, locks."""
