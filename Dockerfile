# mcp-server-sevdesk as a distroless container: Streamable HTTP on 0.0.0.0:8080, non-root (uid
# 65532), no shell, state in the /data volume.
#
#   docker build -t mcp-server-sevdesk .
#   docker run -d -p 127.0.0.1:8080:8080 -v sevdesk-data:/data \
#     -e SEVDESK_HTTP_AUTH=bearer -e SEVDESK_HTTP_SECRET=... -e SEVDESK_API_TOKEN=... \
#     -e SEVDESK_HTTP_PUBLIC_URL=https://mcp.example.de mcp-server-sevdesk
#
# Both base images are build arguments. The runtime base must have Debian 12's Python 3.11 at
# /usr/bin/python3.11 (as the distroless Python image has); the build base needs a Python 3.11
# with the venv module (the default, or a Debian 12 image with python3-venv). Its patch release
# does not matter: the build stage only builds the project's wheel and an empty venv, and the
# second stage, on the runtime base, installs the dependencies with the runtime's own
# interpreter, so every dependency marker (redis's async-timeout for Python < 3.11.3, say) is
# evaluated for the Python that runs the server, and pip check confirms it. Every instruction
# uses the exec form: no stage needs a shell. VERSION and SOURCE_URL fill the OCI labels.
# The dependencies come from the image's hash lock scripts/packaging/requirements-image.lock
# (pip --require-hashes: no other version, no other file), which leaves out keyring and what
# only it brings: the image has no keychain (ADR 0020), so the wheel is installed without its
# dependencies and pip check accepts only its missing keyring. EXTRAS=redis adds the shared
# state of several instances (deploy/compose/scale-out.yaml) from requirements-image-redis.lock.
# Both bases are pinned by digest; to update one, pull the tag and put its digest here.
ARG BUILD_BASE=docker.io/library/python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b
ARG RUNTIME_BASE=gcr.io/distroless/python3-debian12:nonroot@sha256:17b27c84c985a53d0cd2adef4f196ca327fa9b6755369be605cf45533b4e700b

FROM ${BUILD_BASE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY sevdesk_mcp ./sevdesk_mcp
COPY scripts/packaging/build_venv.py /usr/local/share/build_venv.py
COPY scripts/packaging/requirements-build.lock /usr/local/share/requirements-build.lock
RUN ["python3", "/usr/local/share/build_venv.py", "prepare", "/src", "/opt/venv", \
     "/usr/bin/python3.11", "/stage", "/rootfs/data"]

FROM ${RUNTIME_BASE} AS install
ARG EXTRAS=""
# root only in this stage, to write /opt/venv; the final stage runs as 65532
# hadolint ignore=DL3002
USER 0:0
COPY --from=build /opt/venv /opt/venv
COPY --from=build /stage /stage
COPY scripts/packaging/build_venv.py /stage/build_venv.py
COPY scripts/packaging/requirements-image.lock scripts/packaging/requirements-image-redis.lock /stage/
RUN ["/opt/venv/bin/python", "/stage/build_venv.py", "install", "/opt/venv", "/stage"]

FROM ${RUNTIME_BASE}
ARG VERSION=1.0.0
ARG SOURCE_URL="https://github.com/mcp-server-sevdesk/mcp-server-sevdesk"
LABEL org.opencontainers.image.title="mcp-server-sevdesk" \
      org.opencontainers.image.description="MCP server for sevDesk accounting: read-only by default, binding actions only with human approval." \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT"
COPY --from=install /opt/venv /opt/venv
COPY --from=build --chown=65532:65532 /rootfs/data /data
ENV PATH=/opt/venv/bin:/usr/bin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/home/nonroot \
    SEVDESK_HTTP_HOST=0.0.0.0 \
    SEVDESK_HTTP_PORT=8080 \
    SEVDESK_HTTP_STATE_DIR=/data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["mcp-server-sevdesk", "healthcheck"]
ENTRYPOINT ["mcp-server-sevdesk"]
CMD ["--http"]
