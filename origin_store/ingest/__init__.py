"""Incremental, idempotent ingest of agents' log files into the store and the mirrors.

For each file: take its lock (one ingester per file across processes), bring the mirror back to
what LMDB recorded, read the complete lines after the cursor, parse them, append them to the
mirror, then record events, sessions, frames, problems and the new cursor in one LMDB
transaction per batch. A half-written last line waits for the next pass. A file that shrank or
whose head changed is mirrored again as a new version; its events keep their ids, so nothing is
duplicated. A process killed anywhere leaves either the old cursor (the batch is done again) or
the new one (the batch is done): never a half.

The modules, by job: `discovery` (finding log files and which changed), `engine` (the
`Ingester`: a pass, its worker processes, durability), `filepass` (one file's pass), `batch`
(records, keys and feed items made before the write transaction), `commit` (the transaction),
`versions` (rewritten files, mirror recovery), `content` (reading plain and zstd originals),
`workers` (spawned processes), `oshelpers` (locks, syncfs), `skip` and `pausing` (what a pause
leaves out, ephemeral mode), `rowlog` (databases and whole files as append-only logs).
"""

from ..system.oshelpers import LOCK_STRIPES
from .content import HEAD_BYTES
from .discovery import LogFile, Sweep, discover, total_pending_bytes
from .engine import PARALLEL_BYTES, SYNCFS_FILES, Ingester
from .filepass import BATCH_BYTES, BATCH_LINES, COLD_SECONDS, MAX_LINE_BYTES
from .report import IngestReport, Progress

__all__ = [
    "BATCH_BYTES",
    "BATCH_LINES",
    "COLD_SECONDS",
    "HEAD_BYTES",
    "LOCK_STRIPES",
    "MAX_LINE_BYTES",
    "PARALLEL_BYTES",
    "SYNCFS_FILES",
    "IngestReport",
    "Ingester",
    "LogFile",
    "Progress",
    "Sweep",
    "discover",
    "total_pending_bytes",
]
