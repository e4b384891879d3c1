#!/usr/bin/env bash
# The Action's own cost, which the runner pays on every job (it rebuilds a Dockerfile action):
#   bench/image.sh CORPUS      (root; prints one JSON object on stdout)
# Cold build of the unmodified Dockerfile, image size over its base, a rebuild after
# a code-only change (is the dependency layer reused?), and one container run on the
# first corpus submission, run as the runner runs it. Uses .ci/docker-env.sh, so the
# base is the local stand-in described in shared/spec/container-ci.md.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$1
# shellcheck source=.ci/docker-env.sh
. "$REPO/.ci/docker-env.sh"
now() { date +%s.%N; }
seconds() { printf "%.3f" "$(echo "$2 - $1" | bc)"; }

CTX=$W/context; mkdir -p "$CTX"
cp -r "$REPO/Dockerfile" "$REPO/.dockerignore" "$REPO/requirements-action.txt" "$REPO/pyproject.toml" \
      "$REPO/README.md" "$REPO/schemas" "$REPO/validator" "$CTX/"
rm -rf "$CTX/validator/schemas" && cp -r "$REPO/schemas" "$CTX/validator/schemas"

t0=$(now); docker build -q --network host -t lbnorm-bench:cold "$CTX" >/dev/null; t1=$(now)
echo "# a code-only change" >> "$CTX/validator/__init__.py"
t2=$(now); docker build -q --network host -t lbnorm-bench:rebuilt "$CTX" >/dev/null; t3=$(now)

layers() { docker image inspect -f '{{range .RootFS.Layers}}{{println .}}{{end}}' "$1" | sed '/^$/d'; }
base_layers=$(layers "$BASE_TAG" | wc -l)
dep_layer_cold=$(layers lbnorm-bench:cold | sed -n "$((base_layers + 2))p")      # after COPY requirements
dep_layer_rebuilt=$(layers lbnorm-bench:rebuilt | sed -n "$((base_layers + 2))p")
size=$(docker image inspect -f '{{.Size}}' lbnorm-bench:cold)
base=$(docker image inspect -f '{{.Size}}' "$BASE_TAG")

SUB=$(cd "$CORPUS" && find submissions -name submission.json | sort | sed -n 1p)  # sed reads all: no SIGPIPE under pipefail
WS=$W/ws; mkdir -p "$WS/$(dirname "$SUB")" "$W/files" "$W/home"
cp "$CORPUS/$(dirname "$SUB")"/* "$WS/$(dirname "$SUB")/"
: > "$W/files/set_output"; : > "$W/files/step_summary"
t4=$(now)
docker run --rm --network none --workdir /github/workspace -e GITHUB_ACTIONS=true \
  -e GITHUB_WORKSPACE=/github/workspace -e GITHUB_OUTPUT=/github/file_commands/set_output \
  -e GITHUB_STEP_SUMMARY=/github/file_commands/step_summary -e "INPUT_FILES=$SUB" -e INPUT_REPORT= \
  -v "$WS:/github/workspace" -v "$W/files:/github/file_commands" -v "$W/home:/github/home" \
  lbnorm-bench:cold >/dev/null
code=$?
t5=$(now)

cat <<JSON
{"base_image": "$BASE_TAG (local stand-in)", "base_mb": $(printf "%.1f" "$(echo "$base / 1048576" | bc -l)"),
 "image_mb": $(printf "%.1f" "$(echo "$size / 1048576" | bc -l)"), "over_base_mb": $(printf "%.1f" "$(echo "($size - $base) / 1048576" | bc -l)"),
 "cold_build_s": $(seconds "$t0" "$t1"), "rebuild_after_code_change_s": $(seconds "$t2" "$t3"),
 "dependency_layer_reused": $([ "$dep_layer_cold" = "$dep_layer_rebuilt" ] && echo true || echo false),
 "container_run_s": $(seconds "$t4" "$t5"), "container_exit": $code}
JSON
