"""Pausing recording: the switch, its marks on the logs, and the passes that skip."""
