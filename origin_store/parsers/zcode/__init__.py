"""zcode: its session database and the parts of its messages."""
