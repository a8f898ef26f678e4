"""The archive's care: verify, compact, rescans for secrets kept before a rule, and the records that cannot be read."""
