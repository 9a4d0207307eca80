#!/bin/sh
# Run by the postgres image on the first start of an empty volume only: the role the
# application connects as. It owns nothing; the migrate service (`pbem db upgrade` as the
# owner, with PBEM_DATABASE_APP_ROLE=pbem_app) grants it what the services need. For a
# volume made before this file existed, docs/deploy.md says how to create it once.
set -eu
psql -v ON_ERROR_STOP=1 -v password="$POSTGRES_APP_PASSWORD" \
  --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE pbem_app LOGIN PASSWORD :'password';
SQL
