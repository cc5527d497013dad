"""Deployment files agree with the code: every manifest parses, every GCMEM_* variable is a
Settings field with a value Settings accepts, and names the code derives (stream, consumer
group, ports, commands, secret keys) are the ones the manifests use.

There is no container engine or cluster here: these checks parse the files; they do not run
them (deploy/README.md says what was and was not exercised).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import typer.main
import yaml

from gcmem.cli import app
from gcmem.filters.registry import known_stages
from gcmem.pipeline.topology import Topology
from gcmem.settings import ENV_PREFIX, Settings, sections
from gcmem.storage.redis import Keyspace, bus_config_error

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
K8S = DEPLOY / "k8s"
FIELDS = {variable for cls in sections().values() for variable in cls.variables().values()}
GCMEM_VAR = re.compile(r"\bGCMEM_[A-Z0-9_]+\b")


# --- readers -----------------------------------------------------------------------------------
def yaml_files() -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*") if p.suffix in {".yml", ".yaml"})


def load_all(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    lines, current = [], ""
    for raw in (DEPLOY / "Dockerfile").read_text().splitlines():
        if raw.lstrip().startswith("#") and not current:
            continue
        if raw.rstrip().endswith("\\"):
            current += raw.rstrip()[:-1] + " "
            continue
        current += raw
        if current.strip():
            word, _, rest = current.strip().partition(" ")
            lines.append((word.upper(), rest.strip()))
        current = ""
    return lines


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in dockerfile():
        if word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def env_example() -> dict[str, str]:
    out = {}
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


_INTERP = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default}, ${VAR:?error} against ``env``."""

    def sub(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3)
        if name in env and env[name] != "":
            return env[name]
        if op in (":-", "-"):
            return arg or ""
        raise AssertionError(f"compose needs ${{{name}}} and deploy/.env.example does not set it")

    return _INTERP.sub(sub, value.replace("$$", "\x00")).replace("\x00", "$")


def compose() -> dict[str, Any]:
    [doc] = load_all(DEPLOY / "docker-compose.yml")
    return doc


def compose_env(service: str) -> dict[str, str]:
    """What a compose service's container sees: the image's ENV, then the service's."""
    env = dict(dockerfile_env())
    raw = compose()["services"][service].get("environment", {})
    env.update({k: interpolate(str(v), env_example()) for k, v in raw.items()})
    return env


def settings_from(env: Mapping[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for key in list(os.environ):
        if key.startswith(ENV_PREFIX):
            monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith(ENV_PREFIX):
            monkeypatch.setenv(key, value)
    return Settings()


def k8s_docs(*parts: str) -> Iterator[dict[str, Any]]:
    for path in sorted((K8S.joinpath(*parts)).glob("*.yaml")):
        yield from load_all(path)


def k8s_objects(kind: str, *parts: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s_docs(*parts) if d.get("kind") == kind}


def k8s_env(overlay: Mapping[str, str] | None = None) -> dict[str, str]:
    """A pod's environment: image ENV, then the ConfigMap and Secret (envFrom order)."""
    env = dict(dockerfile_env())
    env.update(k8s_objects("ConfigMap", "base")["gcmem-config"]["data"])
    env.update(k8s_objects("Secret", "base")["gcmem-secrets"]["stringData"])
    env.update(overlay or {})
    return env


def containers(deployment: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(deployment["spec"]["template"]["spec"]["containers"])


# --- every file parses; every GCMEM_* name is a setting -----------------------------------------
def test_every_manifest_parses() -> None:
    files = yaml_files()
    assert len(files) >= 10
    for path in files:
        docs = load_all(path)
        assert docs, f"{path} is empty"
        if K8S in path.parents:
            for doc in docs:
                assert {"apiVersion", "kind"} <= set(doc), f"{path}: {doc}"
                if doc["kind"] != "Kustomization":
                    assert doc["metadata"]["name"], path


def test_every_gcmem_variable_in_deploy_is_a_settings_field() -> None:
    sources = [*yaml_files(), DEPLOY / "Dockerfile", DEPLOY / ".env.example", DEPLOY / "README.md"]
    texts = [p.read_text() for p in sources]
    used = {name for text in texts for name in GCMEM_VAR.findall(text)}
    assert used, "no GCMEM_ variables found at all"
    unknown = sorted(used - FIELDS)
    assert not unknown, f"not Settings fields: {unknown}"


def test_dockerfile_shape() -> None:
    instructions = dockerfile()
    words = [w for w, _ in instructions]
    assert words.count("FROM") == 2  # build stage + runtime stage
    env = dockerfile_env()
    assert env["HF_HUB_OFFLINE"] == "1" and env["TRANSFORMERS_OFFLINE"] == "1"
    assert env["GCMEM_NLI_MODEL"].startswith("/models/")
    expose = [r for w, r in instructions if w == "EXPOSE"]
    assert expose == [env["GCMEM_HTTP_PORT"]]
    assert ("ENTRYPOINT", '["gcmem"]') in instructions
    variants = next(r for w, r in instructions if w == "RUN" and "VARIANT" in r)
    assert "cpu)" in variants and "cuda)" in variants


def test_commands_the_deploy_runs_exist() -> None:
    commands = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    used = {next(r for w, r in dockerfile() if w == "CMD").strip('[]"')}
    used |= {s["command"][0] for s in compose()["services"].values() if "command" in s}
    used -= {"redis-server"}
    for kind in ("base",):
        for dep in k8s_objects("Deployment", kind).values():
            used |= {c["args"][0] for c in containers(dep)}
    assert used == {"worker", "serve"}
    assert used <= commands


# --- compose -------------------------------------------------------------------------------------
def test_compose_services_and_health_checks() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "qdrant", "worker", "api"}
    for name, svc in services.items():
        assert "healthcheck" in svc, f"{name} has no health check"
    for name in ("worker", "api"):
        needs = services[name]["depends_on"]
        assert needs == {
            "redis": {"condition": "service_healthy"},
            "qdrant": {"condition": "service_healthy"},
        }
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile"
    volumes = set(compose()["volumes"])
    for svc in services.values():
        for mount in svc.get("volumes", []):
            source = mount.split(":")[0]
            assert source in volumes, f"undeclared volume {source}"


@pytest.mark.parametrize("service", ["worker", "api"])
def test_compose_env_is_valid_settings(service: str, monkeypatch: pytest.MonkeyPatch) -> None:
    env = compose_env(service)
    s = settings_from(env, monkeypatch)
    services = compose()["services"]
    redis_url, qdrant_url = (
        urlparse(s.storage.redis_url or ""),
        urlparse(s.storage.qdrant_url or ""),
    )
    # multi-process needs servers, and they are the compose services
    assert redis_url.hostname == "redis" and (redis_url.port or 6379) == 6379
    assert qdrant_url.hostname == "qdrant" and qdrant_url.port == 6333
    assert "redis" in services and "qdrant" in services
    assert s.storage.redis_password is not None and s.storage.qdrant_api_key is not None
    assert set(s.memory.filters) | set(s.memory.ingest) <= set(known_stages())
    assert s.memory.filters and s.memory.ingest
    # worker and API run the bus, which needs a non-cluster Redis (GCMEM_REDIS_CLUSTER unset)
    assert bus_config_error(s.storage) is None and not s.storage.redis_cluster
    # the password Redis is started with is the one gcmem sends
    redis_cmd = [interpolate(str(a), env_example()) for a in services["redis"]["command"]]
    assert (
        redis_cmd[redis_cmd.index("--requirepass") + 1]
        == s.storage.redis_password.get_secret_value()
    )
    qdrant_key = interpolate(
        services["qdrant"]["environment"]["QDRANT__SERVICE__API_KEY"], env_example()
    )
    assert qdrant_key == s.storage.qdrant_api_key.get_secret_value()


def test_compose_api_port_and_probe_match_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    s = settings_from(compose_env("api"), monkeypatch)
    api = compose()["services"]["api"]
    assert s.http.host == "0.0.0.0" and s.http.token is not None
    published = [str(p).split(":") for p in api["ports"]]
    assert [int(p[-1]) for p in published] == [s.http.port]
    probe = " ".join(api["healthcheck"]["test"])
    assert f":{s.http.port}/healthz" in probe
    assert '"/healthz"' in (Path(__file__).parents[1] / "gcmem/pipeline/http.py").read_text()


def test_compose_overrides_only_touch_known_services(monkeypatch: pytest.MonkeyPatch) -> None:
    services = set(compose()["services"])
    for name in ("docker-compose.gpu.yml", "docker-compose.models.yml"):
        [doc] = load_all(DEPLOY / name)
        assert set(doc["services"]) <= services
        for svc in doc["services"].values():
            env = {k: str(v) for k, v in svc.get("environment", {}).items()}
            settings_from({**compose_env("api"), **env}, monkeypatch)


# --- kubernetes ----------------------------------------------------------------------------------
def test_kustomizations_list_existing_files() -> None:
    for kustomization in K8S.rglob("kustomization.yaml"):
        [doc] = load_all(kustomization)
        for ref in doc.get("resources", []) + [p["path"] for p in doc.get("patches", [])]:
            assert (kustomization.parent / ref).exists(), f"{kustomization}: {ref}"
        listed = {kustomization.parent / r for r in doc.get("resources", [])}
        listed |= {kustomization.parent / p["path"] for p in doc.get("patches", [])}
        here = set(kustomization.parent.glob("*.yaml")) - {kustomization}
        assert here <= listed, f"{kustomization} leaves out {sorted(here - listed)}"


def test_k8s_env_is_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    s = settings_from(k8s_env(), monkeypatch)
    assert (
        s.storage.redis_url
        and s.storage.qdrant_url
        and s.storage.redis_password
        and s.storage.qdrant_api_key
    )
    assert (
        bus_config_error(s.storage) is None and not s.storage.redis_cluster
    )  # the pods run the bus
    assert s.http.token is not None and s.http.host == "0.0.0.0"
    assert set(s.memory.filters) | set(s.memory.ingest) <= set(known_stages())
    # the deployments read exactly these objects
    config, secret = k8s_objects("ConfigMap", "base"), k8s_objects("Secret", "base")
    for dep in k8s_objects("Deployment", "base").values():
        for c in containers(dep):
            refs = c["envFrom"]
            assert {r["configMapRef"]["name"] for r in refs if "configMapRef" in r} <= set(config)
            assert {r["secretRef"]["name"] for r in refs if "secretRef" in r} <= set(secret)
            for var in c.get("env", []):
                assert var["name"] in FIELDS


def test_worker_autoscaling_reads_the_stream_the_workers_consume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = settings_from(k8s_env(), monkeypatch)
    topo = Topology.from_settings(s.pipeline, Keyspace(s.storage.key_prefix), consumer="check")
    scaled = k8s_objects("ScaledObject", "base")["gcmem-worker"]
    assert scaled["spec"]["scaleTargetRef"]["name"] in k8s_objects("Deployment", "base")
    triggers = scaled["spec"]["triggers"]
    assert {t["type"] for t in triggers} == {"redis-streams"}
    assert any("lagCount" in t["metadata"] for t in triggers)
    assert any("pendingEntriesCount" in t["metadata"] for t in triggers)
    redis_url = urlparse(s.storage.redis_url or "")
    auths = k8s_objects("TriggerAuthentication", "base")
    secret = k8s_objects("Secret", "base")
    for t in triggers:
        meta = t["metadata"]
        assert meta["stream"] == topo.stream
        assert meta["consumerGroup"] == topo.group
        assert meta["address"] == f"{redis_url.hostname}:{redis_url.port or 6379}"
        auth = auths[t["authenticationRef"]["name"]]
        for ref in auth["spec"]["secretTargetRef"]:
            assert ref["key"] in secret[ref["name"]]["stringData"]
            if ref["parameter"] == "password":
                assert ref["key"] == "GCMEM_REDIS_PASSWORD"


def test_api_ports_and_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    s = settings_from(k8s_env(), monkeypatch)
    api = k8s_objects("Deployment", "base")["gcmem-api"]
    [c] = containers(api)
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": s.http.port}
    for probe in ("readinessProbe", "livenessProbe"):
        assert c[probe]["httpGet"] == {"path": "/healthz", "port": "http"}
    service = k8s_objects("Service", "base")["gcmem-api"]
    assert service["spec"]["selector"] == api["spec"]["selector"]["matchLabels"]
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["http"]
    annotations = api["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(s.http.port)
    worker = k8s_objects("Deployment", "base")["gcmem-worker"]
    [w] = containers(worker)
    assert "livenessProbe" in w and "ports" not in w


def test_gpu_overlay(monkeypatch: pytest.MonkeyPatch) -> None:
    overlay = k8s_objects("ConfigMap", "overlays", "gpu")["gcmem-config"]["data"]
    s = settings_from(k8s_env(overlay), monkeypatch)
    assert s.models.device == "cuda" and "verdict-precompute" in s.memory.ingest
    assert set(s.memory.ingest) <= set(known_stages())
    base = k8s_objects("Deployment", "base")
    patched = k8s_objects("Deployment", "overlays", "gpu")
    assert set(patched) == set(base)
    for name, dep in patched.items():
        names = {c["name"] for c in containers(base[name])}
        for c in containers(dep):
            assert c["name"] in names
            assert c["resources"]["limits"]["nvidia.com/gpu"] == 1
