#!/usr/bin/env bash
# The Python client's tests (clients/python): pytest against a real embedded engram that the tests
# start, and the framework adapters against their real packages and a local chat-model stub.
#
# The venv lives in the git-ignored .cache/python-client/py3.N and is reused; it is rebuilt when
# clients/python/requirements-test.txt (the exact versions) changes. Python: ENGRAM_PYTHON, else the
# first of python3, python3.13, python3.12, python3.11 (and pyenv's) that is 3.11 or newer: the
# pinned frameworks need it (langchain-core 1.8), though the client itself runs on 3.9. Exits 3,
# having said why on one line, when there is none; `--check` only does that. Extra pytest options
# go after the script's name (e.g. -k langgraph -x).
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=clients/python/requirements-test.txt
supported() { "$1" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; }

python="${ENGRAM_PYTHON:-}"
if [[ -z "$python" ]]; then
  for candidate in python3 python3.13 python3.12 python3.11 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[1-9].*/bin/python3; do
    if command -v "$candidate" >/dev/null && supported "$candidate"; then python="$candidate"; break; fi
  done
fi
if [[ -z "$python" ]] || ! supported "$python"; then
  echo "python client: skipped, no Python >= 3.11 with venv here (set ENGRAM_PYTHON)" >&2
  exit 3
fi
[[ "${1:-}" == "--check" ]] && { echo "$python"; exit 0; }

venv=".cache/python-client/$("$python" -c 'import sys; print(f"py{sys.version_info[0]}.{sys.version_info[1]}")')"
stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ "$(cat "$venv/.requirements" 2>/dev/null || true)" != "$stamp" ]]; then
  echo "python client: installing $requirements into $venv ($python)" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  echo "$stamp" >"$venv/.requirements"
fi

cd clients/python
exec "../../$venv/bin/python" -m pytest -p no:cacheprovider "$@"
