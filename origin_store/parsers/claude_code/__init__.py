"""Claude Code: its transcripts, the outputs it keeps beside them, its attachments."""
