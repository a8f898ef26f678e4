"""Secrets masked before they are kept, and rescans of what was kept."""
