"""Grok: Grok Build's sessions and the grok CLI's."""
