"""The hub's replication: the sync wire format, what a batch may hold, how a store applies one."""
