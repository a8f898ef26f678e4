"""Entries: versions with provenance, forgetting and restoring, imported memories."""
