#!/usr/bin/env bash
# Build the action's real Dockerfile, release it to a real registry on loopback, and run
# it pulled by digest, the way the GitHub runner runs a released Docker action:
#   .ci/action-image-test.sh WORKSPACE FILE_COMMANDS WORKFLOW [INPUT_FILES]
# Needs root (apt, dockerd, docker-registry). Docker Hub is out of reach here, so the
# base is built locally with debootstrap (Debian's Python 3.11) and tagged with the
# Dockerfile's FROM (shared recipe, .ci/docker-env.sh). Steps:
#   1. build the image; rebuild it after a code-only change (which layers changed?);
#   2. push it to the loopback registry; pin a copy of action.yml to its digest with
#      scripts/release_action_yml.py, as release.yml does;
#   3. delete every local image (the base too), pull the reference that action.yml
#      names (docker://REGISTRY/...@sha256:...) and run it as the runner does.
# Prints the container's stdout/stderr and exits with its exit code. When
# IMAGE_FACTS_FILE is set, writes there (JSON) the sizes, layers and references.
# LBNORM_VERSION is passed as the build argument release.yml passes (the tag's version).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WS=$1 FILES=$2 WORKFLOW=$3 INPUT_FILES=${4:-"**/*.json"}
PYTHON=${PYTHON:-python3}
# shellcheck source=.ci/docker-env.sh
. "$REPO/.ci/docker-env.sh"
# shellcheck source=.ci/registry-env.sh
. "$REPO/.ci/registry-env.sh"
layers() { docker image inspect -f '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1" | sed '/^$/d' | paste -sd, -; }

log "building $REPO/Dockerfile"
VERSION_ARG="LBNORM_VERSION=${LBNORM_VERSION:-}"
docker build -q --network host --build-arg "$VERSION_ARG" -t lbnorm-action:build "$REPO" >/dev/null
log "rebuilding after a code-only change"
CTX=$W/context; mkdir -p "$CTX"
cp -r "$REPO/Dockerfile" "$REPO/.dockerignore" "$REPO/requirements-action.txt" "$REPO/requirements-build.txt" \
      "$REPO/pyproject.toml" "$REPO/README.md" "$REPO/LICENSE" "$REPO/schemas" "$REPO/validator" "$CTX/"
mkdir -p "$CTX/examples" && cp -r "$REPO/examples/workflows" "$CTX/examples/"
echo "# a code-only change" >> "$CTX/validator/__init__.py"
docker build -q --network host --build-arg "$VERSION_ARG" -t lbnorm-action:rebuilt "$CTX" >/dev/null

log "pushing to the registry at $REGISTRY"
NAME=$REGISTRY/lbnorm/lbnorm-action
docker tag lbnorm-action:build "$NAME:test"
docker push -q "$NAME:test" >/dev/null
DIGEST=$(docker image inspect -f '{{index .RepoDigests 0}}' "$NAME:test"); DIGEST=${DIGEST#*@}
mkdir -p "$W/release"; cp "$REPO/action.yml" "$W/release/action.yml"
"$PYTHON" "$REPO/scripts/release_action_yml.py" pin --image "$NAME" --digest "$DIGEST" "$W/release/action.yml" >/dev/null
RUNS_IMAGE=$("$PYTHON" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["runs"]["image"])' \
             "$W/release/action.yml")
REF=${RUNS_IMAGE#docker://}

if [ -n "${IMAGE_FACTS_FILE:-}" ]; then
  cat > "$IMAGE_FACTS_FILE" <<JSON
{"image_bytes": $(docker image inspect -f '{{.Size}}' lbnorm-action:build),
 "base_bytes": $(docker image inspect -f '{{.Size}}' "$BASE_TAG"),
 "base_python": "$(docker run --rm --network none --entrypoint python3 "$BASE_TAG" -c 'import sys; print(sys.version.split()[0])')",
 "base_layers": "$(layers "$BASE_TAG")", "layers": "$(layers lbnorm-action:build)",
 "rebuilt_layers": "$(layers lbnorm-action:rebuilt)",
 "build_tools_importable": $(docker run --rm --network none --entrypoint /opt/lbnorm/venv/bin/python lbnorm-action:build -I -c \
   'import importlib.util as u, json; print(json.dumps([m for m in ("pip", "setuptools", "setuptools_scm", "wheel") if u.find_spec(m)]))'),
 "unimportable": $(docker run --rm --network none --entrypoint /opt/lbnorm/venv/bin/python lbnorm-action:build -I -c \
   'import importlib, json; mods = ("click", "jsonschema", "yaml", "re2", "orjson", "validator.cli.group", "validator.action", "validator.audit.auditor", "validator.audit.checks.hashes", "validator.harness.linear_regex")
bad = []
for m in mods:
    try: importlib.import_module(m)
    except ImportError: bad.append(m)
print(json.dumps(bad))'),
 "pushed_digest": "$DIGEST", "runs_image": "$RUNS_IMAGE"}
JSON
fi

log "pulling $REF with an empty image cache"
docker rmi -f lbnorm-action:build lbnorm-action:rebuilt "$NAME:test" "$BASE_TAG" >/dev/null
docker image prune -af >/dev/null
[ -z "$(docker images -q)" ] || { log "images left before the pull: $(docker images)"; exit 3; }
docker pull -q "$REF" >/dev/null

log "running the image as the runner does"
set +e
docker run --rm --network none --workdir /github/workspace \
  -e HOME=/github/home -e GITHUB_ACTIONS=true -e CI=true \
  -e GITHUB_WORKSPACE=/github/workspace -e GITHUB_EVENT_NAME=pull_request \
  -e GITHUB_EVENT_PATH=/github/workflow/event.json \
  -e GITHUB_OUTPUT=/github/file_commands/set_output -e GITHUB_STEP_SUMMARY=/github/file_commands/step_summary \
  -e "INPUT_FILES=$INPUT_FILES" -e INPUT_STRICT=false -e INPUT_TOLERANCE=0.01 -e INPUT_PROFILE= \
  -e "INPUT_PROFILE-FILE=" -e INPUT_REPORT=lbnorm-report.json \
  -v "$WS:/github/workspace" -v "$FILES:/github/file_commands" -v "$WORKFLOW:/github/workflow" \
  -v "$W:/github/home" \
  "$REF"
code=$?
set -e
exit $code
