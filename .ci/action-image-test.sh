#!/usr/bin/env bash
# Build the action's real Dockerfile and run the image the way the GitHub runner does.
#   .ci/action-image-test.sh WORKSPACE FILE_COMMANDS WORKFLOW [INPUT_FILES]
# Needs root (apt, dockerd). Docker Hub is out of reach here, so a base image is
# built locally with debootstrap (Debian's Python 3.11) and tagged with the
# Dockerfile's FROM, following shared/spec/container-ci.md. The tarball is cached
# outside the clone; everything else lives in a temporary folder removed on exit.
# Prints the container's stdout/stderr and exits with the container's exit code;
# the image's size is written to $IMAGE_SIZE_FILE when that is set.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WS=$1 FILES=$2 WORKFLOW=$3 INPUT_FILES=${4:-"**/*.json"}
# shellcheck source=.ci/docker-env.sh
. "$REPO/.ci/docker-env.sh"
log "building $REPO/Dockerfile"
docker build -q --network host -t lbnorm-action:test "$REPO" >/dev/null
if [ -n "${IMAGE_SIZE_FILE:-}" ]; then
  docker image inspect -f '{{.Size}}' lbnorm-action:test > "$IMAGE_SIZE_FILE"
  docker image inspect -f '{{.Size}}' "$BASE_TAG" >> "$IMAGE_SIZE_FILE"
fi
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
  lbnorm-action:test
code=$?
set -e
exit $code
