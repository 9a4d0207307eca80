# Shared by ./run and ./test: make .venv with Python 3.11+ and install pbem into it.
# ensure_venv EXTRAS: reinstalls only when pyproject.toml or the version (pbem/__init__.py,
# which the installed metadata carries) changed since the last install.

find_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "pbem needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

ensure_venv() {
  local extras="$1" python stamp want
  if [ ! -x .venv/bin/python ]; then
    python=$(find_python)
    "$python" -m venv .venv
  fi
  stamp=.venv/.pbem-installed
  want="$extras $(cat pyproject.toml pbem/__init__.py | sha256sum | cut -c1-16)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".[$extras]"
    echo "$want" > "$stamp"
  fi
}
