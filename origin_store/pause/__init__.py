"""Pausing recording: the switch, and the marks it leaves on the logs (the ingest's side of
it is ingest/pause_pass and ingest/pause_skip)."""
