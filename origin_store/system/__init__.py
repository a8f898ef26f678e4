"""What the store asks of the operating system: durable writes, page release, processes."""
