# The server image: the project installed as a regular package (not editable) in a virtual
# environment, with exactly the dependencies of uv.lock. tests/test_packaging.py runs this
# recipe's build steps on the machine and serves the page from the result.

# ---- build: the venv in /app/.venv
FROM python:3.11.13-slim-bookworm AS build

COPY --from=ghcr.io/astral-sh/uv:0.13.9 /uv /usr/local/bin/uv
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1

WORKDIR /app
# Dependencies first, in their own layer: rebuilt only when the lock changes.
COPY pyproject.toml uv.lock ./
RUN uv sync --locked --no-dev --no-install-project --no-editable
# Then the project itself (the browser client, web/, is package data of machiavelox_web).
COPY README.md ./
COPY engine ./engine
COPY solver ./solver
COPY server ./server
COPY bots ./bots
COPY web ./web
RUN uv sync --locked --no-dev --no-editable

# ---- run: the venv alone, no source tree
FROM python:3.11.13-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/app/.venv/bin:$PATH \
    MACHIAVELOX_HOST=0.0.0.0 \
    MACHIAVELOX_PORT=8000

RUN useradd --create-home --uid 10001 --user-group machiavelox
COPY --from=build /app/.venv /app/.venv

WORKDIR /home/machiavelox
USER 10001
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"]
CMD ["machiavelox", "serve"]
