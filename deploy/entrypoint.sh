#!/bin/sh
# Run one of: migrate, web, scheduler, inbound.
# migrate runs as the tables' owner: it brings the schema up to date and grants the
# application's role (PBEM_DATABASE_APP_ROLE) exactly what it needs. The others run as
# that role, which can neither migrate nor rewrite the move log, and refuse to serve a
# schema that is not up to date.
set -eu
case "${1:-web}" in
  migrate) exec pbem db upgrade ;;
  web) exec gunicorn -c /etc/pbem/gunicorn.conf.py ;;
  scheduler) exec pbem scheduler ;;
  inbound) exec pbem inbound --lmtp --host 0.0.0.0 --port 8025 ;;
  *) exec "$@" ;;
esac
