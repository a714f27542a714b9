#!/usr/bin/env bash
# Every check, on a fresh Debian machine as on a developer's (CI runs it through .ci/run):
#
#  1. the system packages the tests need (Redis server, Chromium, HAProxy), through apt when root;
#  2. uv, at the version pinned below, then the project and its test extra exactly as uv.lock
#     has them, in .venv (`uv sync --locked` stops here when uv.lock does not match
#     pyproject.toml; tests/test_packaging.py checks the same);
#  3. `ruff check` and `mypy` (strict on engine/, solver/, server/ and bots/), as pinned in uv.lock;
#  4. the lower bounds of pyproject.toml are true: every direct dependency at the lowest version
#     it allows (transitive ones as of LOWEST_AS_OF, so a new release elsewhere cannot turn this
#     red by itself), in .venv-lowest, running the fast tests (-m "not browser and not slow")
#     but the engine's: engine/ imports no third-party library (tests/test_engine_purity.py),
#     so only its Hypothesis properties (tests/test_engine_properties.py) meet a dependency;
#  5. the whole pytest suite, in .venv, on two workers (pytest-xdist).
#
# Extra arguments go to the last pytest and skip step 4, e.g.
# `bash scripts/test.sh tests/test_packaging.py -x`. Each step prints the seconds it took.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

UV_VERSION=0.13.9
# The day uv.lock was last refreshed: the lowest-versions run resolves as of then.
LOWEST_AS_OF=2026-12-01T00:00:00Z
export UV_PYTHON_DOWNLOADS=never UV_LINK_MODE=copy

step() {
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}

system_packages() {
  # node: the browser's applier of changes runs under `node --test` (tests/js);
  # haproxy: the reverse proxy the cluster tests route through (deploy/haproxy.cfg).
  if command -v redis-server >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1 \
      && command -v node >/dev/null 2>&1 && command -v haproxy >/dev/null 2>&1; then
    return
  fi
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends redis-server chromium nodejs haproxy
  else
    echo "note: redis-server, chromium, node and haproxy are needed by some tests; install them (as root: apt-get install redis-server chromium nodejs haproxy)" >&2
  fi
}

install_locked() {
  if [ "$(python3 -m uv --version 2>/dev/null)" != "uv $UV_VERSION" ]; then
    python3 -m pip install --quiet "uv==$UV_VERSION"
  fi
  python3 -m uv sync --locked --extra test --python python3
}

lint() {
  .venv/bin/ruff check .
  .venv/bin/mypy
}

lowest_versions() {
  python3 -m uv venv --quiet --clear --python python3 .venv-lowest
  python3 -m uv pip compile --quiet --resolution lowest-direct --exclude-newer "$LOWEST_AS_OF" \
    --python .venv-lowest/bin/python --extra test --no-header pyproject.toml \
    -o .venv-lowest/requirements.txt
  python3 -m uv pip sync --quiet --python .venv-lowest/bin/python .venv-lowest/requirements.txt
  python3 -m uv pip install --quiet --python .venv-lowest/bin/python --no-deps -e .
  grep -v '^ ' .venv-lowest/requirements.txt | tr '\n' ' ' && echo
  local skip=() f
  for f in tests/test_engine_*.py; do
    [ "$f" = tests/test_engine_properties.py ] || skip+=("--ignore=$f")
  done
  PATH="$PWD/.venv-lowest/bin:$PATH" .venv-lowest/bin/python -m pytest -q -p no:cacheprovider \
    -n 2 -m "not browser and not slow" "${skip[@]}"
}

step "system packages" system_packages
step "install from uv.lock" install_locked
step "ruff and mypy" lint
if [ $# -eq 0 ]; then
  step "lowest versions: fast tests" lowest_versions
fi
# As in an activated venv: the tests that run `machiavelox` find the venv's.
export PATH="$PWD/.venv/bin:$PATH"
# Two workers (pytest-xdist): much of the suite waits on real clocks, so two cores serve two.
step "pytest" .venv/bin/python -m pytest -q -n 2 "$@"
