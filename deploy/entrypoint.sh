#!/bin/sh
# Bring the database up to date, then run one of: web, scheduler, inbound.
set -eu
pbem db upgrade
case "${1:-web}" in
  web) exec gunicorn -c /etc/pbem/gunicorn.conf.py ;;
  scheduler) exec pbem scheduler ;;
  inbound) exec pbem inbound --lmtp --host 0.0.0.0 --port 8025 ;;
  *) exec "$@" ;;
esac
