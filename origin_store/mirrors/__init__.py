"""The mirrors: every agent log line kept exactly, compressed in frames."""
