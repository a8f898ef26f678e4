"""`origin continue` and the session page's command: each agent's own command that continues one
of its sessions (`commands`), and which session a person means (`resolve`)."""
