#!/usr/bin/env bash
# The one command that runs the test suite on a fresh Debian machine: it installs the system
# packages the tests need (Redis server, Chromium), the project with its test extra, then runs
# pytest. Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/test_packaging.py -x`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v redis-server >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends redis-server chromium
  else
    echo "note: redis-server and chromium are needed by some tests; install them (as root: apt-get install redis-server chromium)" >&2
  fi
fi

python3 -m pip install -e '.[test]'
exec python3 -m pytest -q "$@"
