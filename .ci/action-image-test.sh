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
CACHE=${LBNORM_CTR_CACHE:-/var/cache/lbnorm-ci}; KEY=debian-bookworm-python3-v1
BASE_TAG=$(awk '/^FROM /{print $2; exit}' "$REPO/Dockerfile")
W=$(mktemp -d)
log() { echo "[image-test] $*" >&2; }

MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$MIRROR" ] || MIRROR=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  log "installing docker.io and debootstrap"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null
fi
mkdir -p "$CACHE"
if [ ! -s "$CACHE/$KEY.tar" ]; then
  log "building the stand-in base image (about a minute)"
  R=$W/rootfs
  debootstrap --variant=minbase bookworm "$R" "$MIRROR" >/dev/null
  printf '#!/bin/sh\nexit 101\n' > "$R/usr/sbin/policy-rc.d"; chmod +x "$R/usr/sbin/policy-rc.d"
  chroot "$R" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip ca-certificates >/dev/null 2>&1 && apt-get clean && rm -rf /var/lib/apt/lists/*'
  cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/ca-certificates.crt"
  rm -f "$R"/usr/lib/python3*/EXTERNALLY-MANAGED "$R/usr/sbin/policy-rc.d"
  ln -sf python3 "$R/usr/bin/python"; ln -sf pip3 "$R/usr/bin/pip"
  rm -rf "$R"/usr/share/doc/* "$R"/usr/share/man/* "$R"/usr/share/locale/*
  tar -C "$R" -cf "$CACHE/$KEY.tar.tmp" . && mv "$CACHE/$KEY.tar.tmp" "$CACHE/$KEY.tar"; rm -rf "$R"
fi

dockerd --storage-driver=overlay2 --iptables=false --ip-masq=false --bridge=none \
  --data-root="$W/docker" --exec-root="$W/exec" --pidfile="$W/docker.pid" -H "unix://$W/docker.sock" \
  >"$W/dockerd.log" 2>&1 &
DPID=$!
cleanup() { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null || true; umount "$W"/exec/netns/* 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
export DOCKER_HOST=unix://$W/docker.sock DOCKER_BUILDKIT=0
for _ in $(seq 100); do docker version >/dev/null 2>&1 && break; sleep 0.2; done
docker import -c 'CMD ["python3"]' "$CACHE/$KEY.tar" "$BASE_TAG" >/dev/null
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
