"""The admin UI's pages: one module per page (or group of pages), each exposing `ROUTES`, a
list of route handlers with paths relative to `/ui`. `ui.app` collects every module here."""
