"""The scheduler's ``retention`` job: what is kept whole only for a while (``Config.retention``).

Sent mails older than ``mail_days`` lose their subject and bodies (the Message-ID,
recipient, kind, times and chain hash stay); rows of the access log older than
``client_days`` keep the network and the browser family (``privacy.reduce``), and
sign-in links no IP address. Each batch is a short transaction of its own, so moves and
mail go on between them; a row done is never picked again, so a second run, or two
schedulers, only find less to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from ...store import access_log, outbox
from ...store import players as player_rows
from ..core import privacy
from ..core.env import Env

#: Rows per transaction: a few milliseconds of the write lock each on SQLite.
BATCH = 200
#: Batches per table in one run; the next run goes on where this one stopped.
MAX_BATCHES = 250


@dataclass(frozen=True, slots=True)
class RetentionReport:
    mails: int = 0  #: sent mails whose words were pruned
    access: int = 0  #: rows of the access log reduced
    links: int = 0  #: sign-in links that lost their IP address

    def __bool__(self) -> bool:
        return bool(self.mails or self.access or self.links)


def run(env: Env, batch: int = BATCH, max_batches: int = MAX_BATCHES) -> RetentionReport:
    """Prune and reduce everything older than the retention periods, batch by batch."""
    now = env.clock.now()
    mail_cutoff = now - timedelta(days=env.config.retention.mail_days)
    client_cutoff = now - timedelta(days=env.config.retention.client_days)
    mails = access = links = 0
    for _ in range(max_batches):
        with env.db.write() as session:
            done = outbox.prune(session, outbox.prunable(session, mail_cutoff, batch), now)
        mails += done
        if done < batch:
            break
    for _ in range(max_batches):
        with env.db.write() as session:
            rows = access_log.unreduced_before(session, client_cutoff, batch)
            access += privacy.reduce_rows(session, rows, now)
        if len(rows) < batch:
            break
    for _ in range(max_batches):
        with env.db.write() as session:
            done = player_rows.forget_link_ips(session, client_cutoff, batch)
        links += done
        if done < batch:
            break
    return RetentionReport(mails, access, links)
