"""The archive's care: verify, compact, and the records that cannot be read."""
