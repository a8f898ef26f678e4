"""Secrets masked before they are kept: what is a secret, and how it is masked."""
