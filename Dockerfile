FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MACHIAVELOX_HOST=0.0.0.0 \
    MACHIAVELOX_PORT=8000

RUN useradd --create-home --uid 10001 --user-group machiavelox

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY server ./server
COPY bots ./bots
# A regular install: the browser client is package data of server/, so /app is not needed after.
RUN pip install --no-cache-dir .

USER 10001
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"]
CMD ["machiavelox", "serve"]
