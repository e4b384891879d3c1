#!/usr/bin/env bash
# Two clean environments, so that neither side's imports slow the other:
#   bench/.venv        lbnorm as users install it (pip install .), plus orjson for the bare-parse limit
#   bench/.venv-peers  check-jsonschema (its format-checker extras would otherwise load with our jsonschema)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -m venv --clear bench/.venv
bench/.venv/bin/pip install -q --disable-pip-version-check . orjson
"$PYTHON" -m venv --clear bench/.venv-peers
bench/.venv-peers/bin/pip install -q --disable-pip-version-check check-jsonschema
echo "bench/.venv and bench/.venv-peers ready"
