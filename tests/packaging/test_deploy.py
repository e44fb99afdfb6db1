"""The deploy templates (``deploy/``): each parses, passes only documented settings, runs the
image in bearer mode behind TLS and names its secrets without filling them in."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
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
    redis = services["redis"]
    assert redis["command"][0] == "redis-server"  # exec form: no shell that reads a secret
    assert " ".join(redis["command"]).count("--appendonly yes") == 1
    acl = redis["command"][redis["command"].index("--aclfile") + 1]
    assert acl.removeprefix("/run/secrets/") in redis["secrets"]
    assert compose["secrets"][acl.removeprefix("/run/secrets/")]["file"].startswith("./secrets/")
    assert "ports" not in redis  # only the instances reach it
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    caddyfile = (DEPLOY / "compose/Caddyfile.scale-out").read_text()
    assert "sevdesk-1:8080 sevdesk-2:8080" in caddyfile and "health_uri /healthz" in caddyfile


SECRET_ON_A_COMMAND_LINE = re.compile(
    r"--requirepass|(?:^|\s)-a\s|--pass\b|--user\s\S+\s+--pass|\bAUTH\s|\$\$?\(cat |`cat "
)


def secrets_on_command_lines(service: dict[str, Any]) -> list[str]:
    """:returns: the command, entry point and health check arguments of ``service`` that put a
    password on a process's command line (where ``ps`` and ``/proc`` show it to every user)."""
    lines = [service.get("command"), service.get("entrypoint")]
    lines.append((service.get("healthcheck") or {}).get("test"))
    found = []
    for line in lines:
        if line is None:
            continue
        words = line if isinstance(line, list) else [line]
        if words and words[0] == "CMD-SHELL":  # the shell passes only REDISCLI_AUTH=...
            words = [re.sub(r"\bREDISCLI_AUTH=\"\$\$\(cat [^)]+\)\"", "", words[1])]
        found += [w for w in map(str, words) if SECRET_ON_A_COMMAND_LINE.search(f" {w} ")]
    return found


def scale_out_redis() -> dict[str, Any]:
    compose = yaml.safe_load((DEPLOY / "compose/scale-out.yaml").read_text())
    return dict(compose["services"]["redis"])


def test_no_template_puts_a_password_on_a_command_line() -> None:
    for name in ("compose/compose.yaml", "compose/scale-out.yaml"):
        compose: dict[str, Any] = yaml.safe_load((DEPLOY / name).read_text())
        for service, definition in compose["services"].items():
            assert not secrets_on_command_lines(definition), (name, service)
    health = scale_out_redis()["healthcheck"]["test"]
    assert health[0] == "CMD-SHELL" and "REDISCLI_AUTH=" in health[1]


@pytest.mark.parametrize(
    ("where", "planted"),
    [
        ("command", ["sh", "-c", 'exec redis-server --requirepass "$$(cat /run/secrets/p)"']),
        ("command", ["redis-server", "--requirepass", "s3cret"]),
        ("healthcheck", {"test": ["CMD", "redis-cli", "-a", "s3cret", "ping"]}),
        ("healthcheck", {"test": ["CMD-SHELL", 'redis-cli -a "$$(cat /run/secrets/p)" ping']}),
        ("healthcheck", {"test": ["CMD-SHELL", "redis-cli --pass `cat /run/secrets/p` ping"]}),
        ("entrypoint", "redis-cli --user default --pass s3cret"),
    ],
)
def test_a_password_planted_on_a_command_line_is_found(where: str, planted: object) -> None:
    redis = scale_out_redis() | {where: planted}
    assert secrets_on_command_lines(redis)


def acl_recipe() -> str:
    """:returns: the scale-out template's shell lines that write ``secrets/redis_users.acl``."""
    comment = [
        line.removeprefix("#").strip()
        for line in (DEPLOY / "compose/scale-out.yaml").read_text().splitlines()
        if line.startswith("#")
    ]
    start = next(i for i, line in enumerate(comment) if line.startswith("printf 'user default"))
    end = next(i for i in range(start, len(comment)) if "> secrets/redis_users.acl" in comment[i])
    return "\n".join(comment[start : end + 1]).split("   #", 1)[0]


@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server (Debian's)")
def test_the_acl_recipe_gives_a_redis_that_takes_the_password_and_nothing_else(
    tmp_path: Path,
) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets/redis_password").write_text("planted-Password_0123456789\n")
    subprocess.run(["sh", "-c", acl_recipe()], cwd=tmp_path, check=True)
    acl = (tmp_path / "secrets/redis_users.acl").read_text()
    assert "planted" not in acl  # only the hash is stored
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--dir", str(tmp_path), "--aclfile", str(tmp_path / "secrets/redis_users.acl")],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:

        def ping(env: dict[str, str]) -> str:
            command = ["redis-cli", "-p", str(port), "ping"]
            for _ in range(200):
                out = subprocess.run(command, check=False, env=env, capture_output=True, text=True)
                if "Connection refused" not in out.stdout + out.stderr:
                    return out.stdout.strip()
                time.sleep(0.05)
            raise AssertionError("redis-server did not start")

        path = {"PATH": os.environ["PATH"]}
        assert ping(path | {"REDISCLI_AUTH": "planted-Password_0123456789"}) == "PONG"
        assert ping(path).startswith("NOAUTH")
        assert ping(path | {"REDISCLI_AUTH": "wrong"}).startswith("NOAUTH")  # AUTH refused
        # the template's health check, as Compose runs it ($$ is Compose's $), on this port
        check = scale_out_redis()["healthcheck"]["test"][1].replace("$$", "$")
        check = check.replace("/run/secrets/", f"{tmp_path}/secrets/")
        check = check.replace("redis-cli ", f"redis-cli -p {port} ")
        assert subprocess.run(["sh", "-c", check], env=path, check=False).returncode == 0
        (tmp_path / "secrets/redis_password").write_text("wrong\n")
        assert subprocess.run(["sh", "-c", check], env=path, check=False).returncode != 0
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_fly_sets_no_secret_and_names_both() -> None:
    text = (DEPLOY / "fly/fly.toml").read_text()
    fly = tomllib.loads(text)
    assert not SECRETS & set(fly["env"])
    assert all(f"{secret}=" in text for secret in SECRETS)  # in the `fly secrets set` line
    assert fly["env"]["SEVDESK_HTTP_AUTH"] == "bearer"
    assert fly["http_service"]["internal_port"] == 8080
    assert fly["http_service"]["checks"][0]["path"] == "/healthz"
    assert fly["mounts"]["destination"] == "/data"
    # flyctl resolves [build].dockerfile against the folder of --config (deploy/fly/); a
    # --dockerfile flag would be a second path, relative to the working directory instead
    assert (DEPLOY / "fly" / fly["build"]["dockerfile"]).resolve() == ROOT / "Dockerfile"
    commands = [line for line in text.splitlines() if line.startswith("#   fly ")]
    assert any("fly deploy --config deploy/fly/fly.toml" in c for c in commands)
    for command in commands:
        assert "--config deploy/fly/fly.toml" in command, command  # run from the root
        assert "--dockerfile" not in command, command  # one path, the one in [build]


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
