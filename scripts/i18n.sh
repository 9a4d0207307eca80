#!/usr/bin/env bash
# The gettext catalogs (docs/translating.md):
#   scripts/i18n.sh extract   re-extract pbem/translations/messages.pot from the code and templates
#   scripts/i18n.sh update    extract, then merge new and changed texts into every catalog
#   scripts/i18n.sh compile   write the .mo files (pbem reads the .po directly when they are missing)
set -euo pipefail
cd "$(dirname "$0")/.."
PYBABEL=".venv/bin/pybabel"
POT=pbem/translations/messages.pot

extract() {
  "$PYBABEL" extract -F babel.cfg -k _l -k _ln:1,2 -k N_ --no-location --sort-output \
    --project=pbem --copyright-holder="pbem contributors" -o "$POT" .
}

case "${1:-}" in
  extract) extract ;;
  update) extract; "$PYBABEL" update -i "$POT" -d pbem/translations --no-fuzzy-matching --ignore-obsolete ;;
  compile) "$PYBABEL" compile -d pbem/translations --statistics ;;
  *) echo "usage: $0 extract|update|compile" >&2; exit 2 ;;
esac
