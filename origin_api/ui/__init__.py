"""The admin UI: server-rendered pages over the same service the tools use, served by the hub
and by `origin ui` on a device."""
