#!/usr/bin/env bash
# The Action's own cost, which the runner pays on every job:
#   bench/image.sh CORPUS      (root; prints one JSON object on stdout)
# - a cold build of the unmodified Dockerfile, the image's size over its base, and a
#   rebuild after a code-only change (is the dependency layer reused?);
# - one container run on the first corpus submission, run as the runner runs it;
# - time to verdict: from an empty image cache to the first annotation (on that
#   submission with one reported score inflated), (a) pulling the released image by
#   digest from a registry on loopback, as `image: docker://...@sha256:...` makes the
#   runner do, versus (b) what `image: Dockerfile` costs: pull the base from the same
#   registry, build (pip downloads the locked wheels), run.
# Uses .ci/docker-env.sh (a local stand-in for the base image)
# and .ci/registry-env.sh (Debian's docker-registry).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$1
# shellcheck source=.ci/docker-env.sh
. "$REPO/.ci/docker-env.sh"
# shellcheck source=.ci/registry-env.sh
. "$REPO/.ci/registry-env.sh"
now() { date +%s.%N; }
seconds() { printf "%.3f" "$(echo "$2 - $1" | bc)"; }

CTX=$W/context; mkdir -p "$CTX"
cp -r "$REPO/Dockerfile" "$REPO/.dockerignore" "$REPO/requirements-action.txt" "$REPO/requirements-build.txt" \
      "$REPO/pyproject.toml" "$REPO/README.md" "$REPO/schemas" "$REPO/validator" "$CTX/"

t0=$(now); docker build -q --network host -t lbnorm-bench:cold "$CTX" >/dev/null; t1=$(now)
echo "# a code-only change" >> "$CTX/validator/__init__.py"
t2=$(now); docker build -q --network host -t lbnorm-bench:rebuilt "$CTX" >/dev/null; t3=$(now)

layers() { docker image inspect -f '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1" | sed '/^$/d'; }
base_layers=$(layers "$BASE_TAG" | wc -l)
dep_layer_cold=$(layers lbnorm-bench:cold | sed -n "$((base_layers + 1))p")      # the first layer over the base
dep_layer_rebuilt=$(layers lbnorm-bench:rebuilt | sed -n "$((base_layers + 1))p")
size=$(docker image inspect -f '{{.Size}}' lbnorm-bench:cold)
base=$(docker image inspect -f '{{.Size}}' "$BASE_TAG")

SUB=$(cd "$CORPUS" && find submissions -name submission.json | sort | sed -n 1p)  # sed reads all: no SIGPIPE under pipefail
WS=$W/ws; mkdir -p "$WS/$(dirname "$SUB")" "$W/files" "$W/home"
cp "$CORPUS/$(dirname "$SUB")"/* "$WS/$(dirname "$SUB")/"
: > "$W/files/set_output"; : > "$W/files/step_summary"
run_as_runner() {
  docker run --rm --network none --workdir /github/workspace -e GITHUB_ACTIONS=true \
    -e GITHUB_WORKSPACE=/github/workspace -e GITHUB_OUTPUT=/github/file_commands/set_output \
    -e GITHUB_STEP_SUMMARY=/github/file_commands/step_summary -e "INPUT_FILES=$1" -e INPUT_REPORT= \
    -v "$WS:/github/workspace" -v "$W/files:/github/file_commands" -v "$W/home:/github/home" "$2"
}
t4=$(now); set +e; run_as_runner "$SUB" lbnorm-bench:cold >/dev/null; code=$?; set -e; t5=$(now)

# --- time to verdict ------------------------------------------------------------------
INFLATED=$(dirname "$SUB")/inflated.json
python3 - "$WS/$SUB" "$WS/$INFLATED" <<'PY'
import json, sys
submission = json.load(open(sys.argv[1]))
first = next(iter(submission["reported"]))
submission["reported"][first] += 1.0  # off by a whole point: one LB601 annotation
json.dump(submission, open(sys.argv[2], "w"), indent=2)
PY
NAME=$REGISTRY/lbnorm/lbnorm-action
docker tag lbnorm-bench:cold "$NAME:bench"; docker push -q "$NAME:bench" >/dev/null
REF=$NAME@$(docker image inspect -f '{{index .RepoDigests 0}}' "$NAME:bench" | cut -d@ -f2)
docker tag "$BASE_TAG" "$REGISTRY/library/$BASE_TAG"; docker push -q "$REGISTRY/library/$BASE_TAG" >/dev/null
empty_cache() {  # no image left: the next pull or build starts from nothing, as on a fresh runner
  docker image prune -af >/dev/null
  docker images -qa | sort -u | xargs -r docker rmi -f >/dev/null 2>&1 || true
}
first_annotation() {  # seconds from $1 until the container prints its first ::error line
  local start=$1 seen=""
  while IFS= read -r line; do
    if [ -z "$seen" ] && [[ $line == ::error* ]]; then seen=$(now); fi
  done < <(run_as_runner "$INFLATED" "$2" 2>&1 || true)
  [ -n "$seen" ] || { log "no annotation from $2"; exit 3; }
  seconds "$start" "$seen"
}
empty_cache
t6=$(now); docker pull -q "$REF" >/dev/null; prebuilt=$(first_annotation "$t6" "$REF")
empty_cache
t7=$(now)
docker pull -q "$REGISTRY/library/$BASE_TAG" >/dev/null; docker tag "$REGISTRY/library/$BASE_TAG" "$BASE_TAG"
docker build -q --network host -t lbnorm-bench:verdict "$CTX" >/dev/null
built=$(first_annotation "$t7" lbnorm-bench:verdict)

cat <<JSON
{"base_image": "$BASE_TAG (local stand-in)", "base_mb": $(printf "%.1f" "$(echo "$base / 1048576" | bc -l)"),
 "image_mb": $(printf "%.1f" "$(echo "$size / 1048576" | bc -l)"), "over_base_mb": $(printf "%.1f" "$(echo "($size - $base) / 1048576" | bc -l)"),
 "cold_build_s": $(seconds "$t0" "$t1"), "rebuild_after_code_change_s": $(seconds "$t2" "$t3"),
 "dependency_layer_reused": $([ "$dep_layer_cold" = "$dep_layer_rebuilt" ] && echo true || echo false),
 "container_run_s": $(seconds "$t4" "$t5"), "container_exit": $code,
 "time_to_verdict_prebuilt_s": $prebuilt, "time_to_verdict_dockerfile_s": $built,
 "time_to_verdict_ratio": $(printf "%.1f" "$(echo "$built / $prebuilt" | bc -l)")}
JSON
