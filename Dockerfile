# The lbnorm GitHub Action. Releases ship this image prebuilt and pinned by digest
# (docs/action.md, RELEASING.md); on main the runner builds it, so `uses: ./` tests
# the working tree. Three stages, one base (a pinned Python minor version and Debian
# release):
#   wheel - builds lbnorm's wheel with the hash-pinned build backend;
#   deps  - the hash-locked runtime dependencies in a virtual environment;
#   final - two COPY layers over the base and no build tool: the dependencies (reused
#           while requirements-action.txt is unchanged), then lbnorm (a code-only
#           change rebuilds this last layer only).

FROM python:3.12-slim-bookworm AS wheel
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
COPY requirements-build.txt /build/requirements-build.txt
RUN pip install --no-cache-dir --require-hashes --only-binary :all: -r /build/requirements-build.txt
COPY pyproject.toml README.md LICENSE /build/src/
COPY schemas /build/src/schemas
COPY examples/workflows /build/src/examples/workflows
COPY validator /build/src/validator
# The release passes the tag's version; without it (no .git in the build context)
# setuptools-scm falls back to pyproject's fallback_version.
ARG LBNORM_VERSION=""
RUN if [ -n "$LBNORM_VERSION" ]; then export SETUPTOOLS_SCM_PRETEND_VERSION_FOR_LBNORM="$LBNORM_VERSION"; fi \
    && pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /build/dist /build/src \
    && pip install --no-cache-dir --no-deps --target /opt/lbnorm/app /build/dist/*.whl \
    && rm -rf /opt/lbnorm/app/bin

FROM python:3.12-slim-bookworm AS deps
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
COPY requirements-action.txt /build/requirements-action.txt
# A venv without pip; the base's pip installs into it. The dependencies' own test suites
# (about 0.8 MB that nothing imports) are left out. The .pth file puts lbnorm's own folder
# (the final layer) on the venv's path, which -I keeps (unlike PYTHONPATH).
RUN python -m venv --without-pip /opt/lbnorm/venv \
    && pip --python /opt/lbnorm/venv/bin/python install --no-cache-dir --require-hashes --only-binary :all: \
       --no-deps -r /build/requirements-action.txt \
    && site=$(/opt/lbnorm/venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))') \
    && rm -rf "$site/jsonschema/tests" "$site/jsonschema/benchmarks" "$site/referencing/tests" \
       "$site/jsonschema_specifications/tests" \
    && echo /opt/lbnorm/app > "$site/lbnorm-app.pth"

FROM python:3.12-slim-bookworm
COPY --from=deps /opt/lbnorm/venv /opt/lbnorm/venv
COPY --from=wheel /opt/lbnorm/app /opt/lbnorm/app
# No USER: the runner mounts the workspace and its file-command files for root.
# -I (isolated mode): the working directory is the pull request's checkout, and a
# validator/ or json/ package planted there must never be imported.
ENTRYPOINT ["/opt/lbnorm/venv/bin/python", "-I", "-m", "validator", "action"]
