#!/bin/sh
# certbot's --deploy-hook (README, "Hosting for friends"): after each issued or renewed
# certificate, write its chain and key as the one PEM file HAProxy reads (deploy/certs/site.pem,
# MVX_TLS_CERT in the proxy container), readable by the container's haproxy group only; then,
# if the proxy is running, reload it (SIGHUP to its master: open connections are kept).
#
#   RENEWED_LINEAGE  set by certbot: /etc/letsencrypt/live/<name>
#   MVX_CERTS_DIR    where to write site.pem (default: deploy/certs beside this script)
#   MVX_CERT_GID     the group HAProxy runs as in its image (default 99, the official image's
#                    haproxy group; check: docker run --rm --entrypoint id haproxy:2.6.23)
#   MVX_NO_RELOAD    set: write the file only
set -eu
deploy=$(cd "$(dirname "$0")" && pwd)
: "${RENEWED_LINEAGE:?run by certbot, which names the certificate directory in RENEWED_LINEAGE}"
certs=${MVX_CERTS_DIR:-$deploy/certs}
umask 077
cat "$RENEWED_LINEAGE/fullchain.pem" "$RENEWED_LINEAGE/privkey.pem" > "$certs/site.pem.new"
chgrp "${MVX_CERT_GID:-99}" "$certs/site.pem.new"
chmod 640 "$certs/site.pem.new"
mv -f "$certs/site.pem.new" "$certs/site.pem"  # whole: a reload never reads half a file
if [ -z "${MVX_NO_RELOAD:-}" ]; then
    cd "$deploy/.."
    if [ -n "$(docker compose ps --status running --quiet proxy)" ]; then
        docker compose kill -s HUP proxy
    fi
fi
