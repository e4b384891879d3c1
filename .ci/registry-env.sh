#!/usr/bin/env bash
# Sourced after .ci/docker-env.sh: a private registry on loopback, the same registry
# software (distribution) that GitHub's container registry speaks to the runner, from
# Debian's docker-registry package. The Docker daemon treats 127.0.0.0/8 registries as
# plain-HTTP ones. Needs root. Sets REGISTRY (127.0.0.1:PORT); stopped on exit.
if ! command -v docker-registry >/dev/null; then
  log "installing docker-registry"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-registry >/dev/null
fi
REGISTRY_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
REGISTRY=127.0.0.1:$REGISTRY_PORT
mkdir -p "$W/registry"
cat > "$W/registry.yml" <<YAML
version: 0.1
log: {level: warn}
storage: {filesystem: {rootdirectory: $W/registry}}
http: {addr: $REGISTRY}
YAML
docker-registry serve "$W/registry.yml" >"$W/registry.log" 2>&1 &
RPID=$!
trap 'kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 100); do
  python3 -c "import urllib.request as u; u.urlopen('http://$REGISTRY/v2/', timeout=1)" 2>/dev/null && break
  sleep 0.2
done
