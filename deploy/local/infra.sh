#!/usr/bin/env bash
# Starts (up) or stops (down) every real server the distributed mode needs, on
# 127.0.0.1, without Docker. Each server's script fetches it on first use into
# the git-ignored cache and waits until it is healthy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
servers=(kafka ferretdb elasticsearch)

case "${1:-}" in
  up)
    for s in "${servers[@]}"; do
      [[ -x "$here/$s.sh" ]] || { echo "infra: $here/$s.sh missing" >&2; exit 1; }
      echo "infra: starting $s" >&2
      "$here/$s.sh" start
    done
    ;;
  down)
    status=0
    for s in "${servers[@]}"; do
      [[ -x "$here/$s.sh" ]] && { "$here/$s.sh" stop || status=1; }
    done
    exit "$status"
    ;;
  status)
    for s in "${servers[@]}"; do
      printf '%-14s ' "$s"; "$here/$s.sh" status || true
    done
    ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
