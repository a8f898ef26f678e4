"""Cursor: the IDE's databases and workspaces, cursor-agent's stores, transcripts."""
