#!/usr/bin/env bash
# Sourced by .ci/action-image-test.sh and bench/image.sh: a private Docker daemon
# with a local stand-in for the Dockerfile's base image, for machines that cannot
# pull from a registry (docs/development.md). Needs root.
# The base tarball is cached outside the clone ($LBNORM_CTR_CACHE); everything
# else lives in $W, removed on exit. Expects REPO; sets W, BASE_TAG, DOCKER_HOST.
CACHE=${LBNORM_CTR_CACHE:-/var/cache/lbnorm-ci}; KEY=debian-bookworm-python3-v1
BASE_TAG=$(awk '/^FROM /{print $2; exit}' "$REPO/Dockerfile")
W=$(mktemp -d)
log() { echo "[docker-env] $*" >&2; }

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
