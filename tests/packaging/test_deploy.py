"""The deploy templates (``deploy/``): each parses, passes only documented settings, runs the
image in bearer mode behind TLS and names its secrets without filling them in."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.packaging.conftest import ROOT

DEPLOY = ROOT / "deploy"
DOCUMENTED = set(
    re.findall(
        r"^\| `(SEVDESK_[A-Z_]+)`",
        (ROOT / "docs" / "configuration.md").read_text(),
        flags=re.MULTILINE,
    )
)
SECRETS = {"SEVDESK_HTTP_SECRET", "SEVDESK_API_TOKEN"}
TEMPLATES = [
    "compose/compose.yaml",
    "compose/Caddyfile",
    "compose/scale-out.yaml",
    "compose/Caddyfile.scale-out",
    "fly/fly.toml",
    "render/render.yaml",
    "railway/railway.json",
    "railway/variables.env",
]


def env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines())
    return {k: v for k, v in (p for p in pairs if len(p) == 2) if not k.startswith("#")}


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_setting_a_template_names_is_documented(name: str) -> None:
    named = set(re.findall(r"\bSEVDESK_[A-Z_]*[A-Z]\b", (DEPLOY / name).read_text()))
    assert named <= DOCUMENTED, sorted(named - DOCUMENTED)


def test_compose_runs_the_image_read_only_behind_caddy_with_file_secrets() -> None:
    compose: dict[str, Any] = yaml.safe_load((DEPLOY / "compose/compose.yaml").read_text())
    server, caddy = compose["services"]["sevdesk"], compose["services"]["caddy"]
    assert (
        DEPLOY / "compose" / server["build"]["context"] / server["build"]["dockerfile"]
    ).is_file()
    assert server["read_only"] is True and "ports" not in server  # only Caddy reaches it
    env = server["environment"]
    assert env["SEVDESK_HTTP_AUTH"] == "bearer"
    assert env["SEVDESK_HTTP_PUBLIC_URL"].startswith("https://${MCP_DOMAIN")
    assert env["SEVDESK_HTTP_TRUST_PROXY"] == "1"  # Caddy is the one proxy
    assert not SECRETS & set(env)
    for variable in ("SEVDESK_HTTP_SECRET_FILE", "SEVDESK_API_TOKEN_FILE"):
        secret = env[variable].removeprefix("/run/secrets/")
        assert secret in server["secrets"]
        assert compose["secrets"][secret]["file"].startswith("./secrets/")
    assert "sevdesk-data:/data" in server["volumes"]
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in caddy["volumes"]
    caddyfile = (DEPLOY / "compose/Caddyfile").read_text()
    assert "{$MCP_DOMAIN}" in caddyfile and "reverse_proxy sevdesk:8080" in caddyfile


def test_the_scale_out_template_shares_one_secret_and_one_redis() -> None:
    path = DEPLOY / "compose/scale-out.yaml"
    compose: dict[str, Any] = yaml.safe_load(path.read_text())
    services = compose["services"]
    instances = [services[name] for name in services if name.startswith("sevdesk-")]
    assert len(instances) >= 2
    assert all(i == instances[0] for i in instances)  # one definition: the same secret for all
    server = instances[0]
    assert server["build"]["args"]["EXTRAS"] == "redis"  # the image with the redis client
    assert server["read_only"] is True and "ports" not in server
    env = server["environment"]
    assert not SECRETS & set(env) and "SEVDESK_HTTP_STATE_URL" not in env  # files only
    for variable in ("SEVDESK_HTTP_SECRET_FILE", "SEVDESK_HTTP_STATE_URL_FILE"):
        assert env[variable].removeprefix("/run/secrets/") in server["secrets"]
    redis = " ".join(services["redis"]["command"])
    assert "--requirepass" in redis and "--appendonly yes" in redis
    assert "ports" not in services["redis"]  # only the instances reach it
    caddyfile = (DEPLOY / "compose/Caddyfile.scale-out").read_text()
    assert "sevdesk-1:8080 sevdesk-2:8080" in caddyfile and "health_uri /healthz" in caddyfile


def test_fly_sets_no_secret_and_names_both() -> None:
    text = (DEPLOY / "fly/fly.toml").read_text()
    fly = tomllib.loads(text)
    assert not SECRETS & set(fly["env"])
    assert all(f"{secret}=" in text for secret in SECRETS)  # in the `fly secrets set` line
    assert fly["env"]["SEVDESK_HTTP_AUTH"] == "bearer"
    assert fly["http_service"]["internal_port"] == 8080
    assert fly["http_service"]["checks"][0]["path"] == "/healthz"
    assert fly["mounts"]["destination"] == "/data"
    assert (DEPLOY / "fly" / fly["build"]["dockerfile"]).is_file()


def test_render_asks_for_the_secrets_instead_of_holding_them() -> None:
    render: dict[str, Any] = yaml.safe_load((DEPLOY / "render/render.yaml").read_text())
    (service,) = render["services"]
    assert service["runtime"] == "docker" and (ROOT / service["dockerfilePath"]).is_file()
    assert service["healthCheckPath"] == "/healthz"
    assert service["disk"]["mountPath"] == "/data"
    env = {item["key"]: item for item in service["envVars"]}
    for secret in SECRETS:
        assert env[secret] == {"key": secret, "sync": False}
    assert env["SEVDESK_HTTP_AUTH"]["value"] == "bearer"


def test_railway_builds_the_dockerfile_and_leaves_the_secrets_empty() -> None:
    railway = json.loads((DEPLOY / "railway/railway.json").read_text())
    assert railway["build"]["builder"] == "DOCKERFILE"
    assert (ROOT / railway["build"]["dockerfilePath"]).is_file()
    assert railway["deploy"]["healthcheckPath"] == "/healthz"
    variables = env_file(DEPLOY / "railway/variables.env")
    assert all(variables[secret] == "" for secret in SECRETS)
    assert variables["SEVDESK_HTTP_AUTH"] == "bearer"


@pytest.mark.threat("I35-8b")
def test_railway_says_how_its_root_owned_volume_is_used() -> None:
    text = (DEPLOY / "railway/variables.env").read_text()
    assert "RAILWAY_RUN_UID=0" in text and "SEVDESK_HTTP_STATE_URL" in text
    assert "RAILWAY_RUN_UID" not in env_file(DEPLOY / "railway/variables.env")  # not by default
    remote = (ROOT / "docs/remote.md").read_text()
    table = remote.split("### The state directory and its owner\n", 1)[1].split("\n#", 1)[0]
    assert "| Railway |" in table and "`RAILWAY_RUN_UID=0`" in table


def test_the_scale_out_docs_ask_for_one_public_url_and_no_sticky_routing() -> None:
    remote = (ROOT / "docs/remote.md").read_text()
    instances = remote.split("## Several instances\n", 1)[1].split("\n## ", 1)[0]
    assert "the same `SEVDESK_HTTP_PUBLIC_URL`" in instances
    assert "need sticky routing" not in remote and "needs no sticky routing" in remote
