# The lbnorm GitHub Action. The runner builds this image on every job, so it stays
# small: exact dependency versions in their own layer (reused when only the code
# changes), then the package itself; the source copy is removed afterwards.
# The base is pinned to a Python minor version and Debian release.
FROM python:3.12-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

COPY requirements-action.txt /opt/lbnorm/requirements-action.txt
RUN pip install --no-cache-dir --no-deps -r /opt/lbnorm/requirements-action.txt

COPY pyproject.toml README.md /opt/lbnorm/src/
COPY schemas /opt/lbnorm/src/schemas
COPY validator /opt/lbnorm/src/validator
RUN pip install --no-cache-dir --no-deps /opt/lbnorm/src \
    && rm -rf /opt/lbnorm/src

# No USER: the runner mounts the workspace and its file-command files for root.
# -I (isolated mode): the working directory is the pull request's checkout, and a
# validator/ or json/ package planted there must never be imported.
ENTRYPOINT ["python", "-I", "-m", "validator", "action"]
