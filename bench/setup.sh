#!/usr/bin/env bash
# Two clean environments, so that neither side's imports slow the other:
#   bench/.venv        lbnorm installed as users install it (pip install .): its dependencies as pip resolves
#                      them, plus orjson for the bare-parse limit. bench/run.py runs `-m validator` from the
#                      checkout, so the code measured is always the checkout's, never a stale install.
#   bench/.venv-peers  check-jsonschema (its format-checker extras would otherwise load with our jsonschema)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -m venv --clear bench/.venv
bench/.venv/bin/pip install -q --disable-pip-version-check . orjson
"$PYTHON" -m venv --clear bench/.venv-peers
bench/.venv-peers/bin/pip install -q --disable-pip-version-check check-jsonschema
echo "bench/.venv and bench/.venv-peers ready"
