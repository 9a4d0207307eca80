"""gunicorn settings for pbem: `gunicorn -c deploy/gunicorn.conf.py`.

Every worker is stateless (the replay cache is per process and never
authoritative), so any number of workers and nodes can share one PostgreSQL.
The scheduler is NOT started here: it runs as `pbem scheduler`, once.
"""

import multiprocessing
import os

wsgi_app = "pbem.web:create_app()"
bind = os.environ.get("PBEM_BIND", "127.0.0.1:8000")
# A request is mostly CPU (about 4.5 ms of it in a move, 1-2 ms waiting on the
# database), so one worker per core, each with a second thread to fill those waits.
# More threads only queue on the GIL: on 2 cores, 4 workers x 4 threads served 15-20%
# fewer moves than 2 x 2 with twice the seat-page p99 (docs/performance.md).
workers = int(os.environ.get("PBEM_WORKERS", multiprocessing.cpu_count()))
worker_class = "gthread"
threads = int(os.environ.get("PBEM_THREADS", "2"))
timeout = 30
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then, but rarely: a fresh worker starts with cold template
# and replay caches, and at a few hundred requests/s a limit of 2000 restarted each
# worker every ten seconds (benchmarks/load.py showed it in the p99).
max_requests = 50000
max_requests_jitter = 5000
# Seat and sign-in links carry secrets in their paths: with this logger every line of
# the access and error logs is redacted (pbem/redact.py): /s/[token], /signin/[token],
# /u/[token].
logger_class = "pbem.web.redact.GunicornLogger"
accesslog = os.environ.get("PBEM_ACCESS_LOG", "-")
errorlog = "-"
# Behind nginx on the same host: trust its X-Forwarded-* headers only.
forwarded_allow_ips = os.environ.get("PBEM_FORWARDED_ALLOW_IPS", "127.0.0.1")
limit_request_line = 4094


def post_worker_init(worker):
    """Warm each new worker (templates, a DB connection) before it takes requests."""
    from pbem.web import warm_up

    if "pbem" in getattr(worker.wsgi, "extensions", {}):  # not benchmarks' bare app
        warm_up(worker.wsgi)
