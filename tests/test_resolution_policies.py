"""Resolution policies (latest, evidence, confirm, accumulate) on the ledger: the rule table,
each policy's decisions and audit rows, confirmation, expiry, the keyed judge log, replay."""

from __future__ import annotations

import json
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from gcmem.models import Fact
from gcmem.settings import PolicyRule, Settings, load_settings
from gcmem.storage.ledger import LedgerDecision, PendingConflict, SupersessionLedger
from gcmem.storage.ledger.policy import (
    BUILTIN_RULE,
    PolicyError,
    PolicyTable,
    Resolution,
    load_policy_file,
    multi_valued,
)
from gcmem.storage.redis import Keyspace, open_redis

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
NS = "pol"


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def table(*rules: dict[str, object], **kw: object) -> PolicyTable:
    return PolicyTable(rules=tuple(PolicyRule.model_validate(r) for r in rules), **kw)  # type: ignore[arg-type]


def make(settings: Settings, policies: PolicyTable) -> SupersessionLedger:
    return SupersessionLedger(
        open_redis(settings.storage), Keyspace(settings.storage.key_prefix), policies=policies
    )


def put(
    ledger: SupersessionLedger,
    obj: str,
    when: float,
    turn: str,
    *,
    source: str | None = None,
    subject: str = "patient",
    relation: str = "medication",
    ns: str = NS,
) -> str:
    fact = Fact(subject=subject, relation=relation, object=obj)
    return ledger.assert_fact(
        ns, fact, ts=day(when), turn_id=turn, chunk_id=f"c-{turn}", source=source
    ).action


def current(
    ledger: SupersessionLedger, subject: str = "patient", rel: str = "medication"
) -> list[str]:
    return sorted(r.object for r in ledger.versions(NS, subject, rel) if r.open)


def outcomes(
    ledger: SupersessionLedger, subject: str = "patient", rel: str = "medication"
) -> list[str]:
    return [d.outcome for d in ledger.decisions(NS, subject, rel)]


# --- the rule table ----------------------------------------------------------------------


def test_rules_match_globs_on_the_normalised_key_first_match_wins() -> None:
    t = table(
        {"relation": "* speak* _", "policy": "accumulate", "name": "languages"},
        {"relation": "medication", "policy": "confirm", "confirm_ttl_s": 60},
        {"namespace": "clinic-*", "source": "ehr", "policy": "evidence"},
        {"subject": "The User", "relation": "hobby", "policy": "accumulate"},
        confirm_ttl_s=3600.0,
    )
    assert t.resolve(NS, "alice", "alice speaks _").policy == "accumulate"
    assert t.resolve(NS, "i", "i speak _").rule == "rule 1 (languages)"
    got = t.resolve(NS, "patient", "medication")
    assert (got.policy, got.confirm_ttl_s) == ("confirm", 60)
    assert t.resolve("clinic-3", "patient", "dose", "ehr").policy == "evidence"
    assert t.resolve("clinic-3", "patient", "dose", "app").policy == "latest"
    assert t.resolve("clinic-3", "patient", "dose").policy == "latest"  # no source, no match
    assert t.resolve(NS, "user", "hobby").policy == "accumulate"  # pattern article dropped
    assert t.resolve(NS, "payments service", "port").rule == "default"
    rows = t.describe()
    assert rows[-1] == {"rule": "default", "policy": "latest"}
    assert rows[1]["confirm_ttl_s"] == 60


def test_rule_validation() -> None:
    with pytest.raises(ValueError, match="accumulate rule cannot select by source"):
        PolicyRule.model_validate({"policy": "accumulate", "source": "x"})
    with pytest.raises(ValueError, match="confirm rules only"):
        PolicyRule.model_validate({"policy": "latest", "confirm_ttl_s": 5})
    with pytest.raises(ValueError):
        PolicyRule.model_validate({"policy": "newest"})


def test_policy_file_and_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "policies.yaml"
    path.write_text(
        "default: latest\ntrust: {ehr: 3, chat: 0.5}\nconfirm_ttl_s: 120\nrules:\n"
        "  - {relation: medication, policy: confirm}\n"
        "  - {relation: '* tags', policy: accumulate}\n"
    )
    monkeypatch.setenv("GCMEM_LEDGER_POLICY_FILE", str(path))
    monkeypatch.setenv("GCMEM_LEDGER_POLICIES", '[{"relation": "dose", "policy": "evidence"}]')
    monkeypatch.setenv("GCMEM_LEDGER_SOURCE_TRUST", '{"chat": 0.25}')
    t = PolicyTable.from_settings(load_settings().ledger)
    assert [r.policy for r in t.rules] == ["evidence", "confirm", "accumulate"]  # env first
    assert t.weight("ehr") == 3 and t.weight("chat") == 0.25 and t.weight(None) == 1.0
    assert t.resolve(NS, "p", "medication").confirm_ttl_s == 120
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": [{"policy": "sometimes"}]}')
    with pytest.raises(PolicyError, match=r"bad.json: rules.0.policy"):
        load_policy_file(bad)
    with pytest.raises(PolicyError, match="not valid"):
        (tmp_path / "x.yaml").write_text("rules: [")
        load_policy_file(tmp_path / "x.yaml")


# --- each policy on the ledger (embedded and real server) -----------------------------------


def test_latest_is_the_default_and_audits_every_resolution(redis_settings: Settings) -> None:
    ledger = make(redis_settings, PolicyTable())
    assert [put(ledger, "aspirin", 1, "t1"), put(ledger, "ibuprofen", 2, "t2")] == [
        "open",
        "supersede",
    ]
    assert put(ledger, "paracetamol", 0.5, "t0") == "late"
    assert current(ledger) == ["ibuprofen"]
    decisions = ledger.decisions(NS, "patient", "medication")
    assert [(d.outcome, d.winner.object, d.loser.object) for d in decisions] == [  # type: ignore[union-attr]
        ("superseded", "ibuprofen", "aspirin"),
        ("late", "aspirin", "paracetamol"),
    ]
    assert all(d.policy == "latest" and d.rule == "default" for d in decisions)
    assert decisions[0].winner.turns == ("t2",)  # type: ignore[union-attr]


def test_accumulate_never_supersedes(redis_settings: Settings) -> None:
    ledger = make(redis_settings, table({"relation": "* speak* _", "policy": "accumulate"}))
    rel = "i speak _"
    for i, lang in enumerate(["French", "Spanish", "French", "German"]):
        put(ledger, lang, i, f"t{i}", subject="user", relation=rel)
    assert put(ledger, "Spanish", -1, "t9", subject="user", relation=rel) == "extend"
    assert current(ledger, "user", rel) == ["French", "German", "Spanish"]
    spanish = next(r for r in ledger.versions(NS, "user", rel) if r.object == "Spanish")
    assert spanish.valid_from == day(-1) and spanish.provenance == ("t1", "t9")
    assert outcomes(ledger, "user", rel) == ["coexist", "coexist"]
    assert ledger.stats(NS).open == 3


def test_evidence_support_and_trust_decide_whatever_the_time(redis_settings: Settings) -> None:
    ledger = make(
        redis_settings,
        table({"relation": "medication", "policy": "evidence"}, trust=(("ehr", 3.0),)),
    )
    put(ledger, "aspirin", 1, "t1", source="chat")
    put(ledger, "aspirin", 2, "t2", source="chat")
    # newer but less supported: held as outweighed, the chunk counts as superseded
    assert put(ledger, "ibuprofen", 3, "t3", source="chat") == "outweighed"
    assert current(ledger) == ["aspirin"]
    assert put(ledger, "ibuprofen", 3.5, "t4", source="chat") == "supersede"  # 2 vs 2, newer
    assert current(ledger) == ["ibuprofen"]
    # one trusted source outweighs two chats, even stated earlier than both
    assert put(ledger, "naproxen", 0.5, "t5", source="ehr") == "supersede"
    assert current(ledger) == ["naproxen"]
    decisions = ledger.decisions(NS, "patient", "medication")
    assert [d.outcome for d in decisions] == ["outweighed", "superseded", "superseded"]
    last = decisions[-1]
    assert last.input["challenger"]["support"] == 3.0 and last.input["incumbent"]["support"] == 2
    assert last.loser is not None and last.loser.sources == ("chat", "chat")
    assert sum(r.open for r in ledger.versions(NS, "patient", "medication")) == 1
    # the winner holds from its own statement or the incumbent's start, whichever is later
    row = ledger.current(NS, "patient", "medication")
    assert row is not None and row.valid_from == day(3.5)


def test_confirm_holds_then_second_source_promotes(redis_settings: Settings) -> None:
    ledger = make(
        redis_settings, table({"relation": "medication", "policy": "confirm"}, confirm_ttl_s=3600.0)
    )
    put(ledger, "aspirin", 1, "t1", source="gp")
    assert put(ledger, "ibuprofen", 2, "t2", source="chat") == "pending"
    assert current(ledger) == ["aspirin"]
    [held] = ledger.pending(NS)
    assert held.pending.object == "ibuprofen" and held.incumbent is not None
    assert held.incumbent.object == "aspirin"
    assert put(ledger, "ibuprofen", 2.1, "t3", source="chat") == "reinforce"  # same source
    assert put(ledger, "ibuprofen", 2.2, "t4", source="pharmacy") == "promote"
    assert current(ledger) == ["ibuprofen"] and ledger.pending(NS) == []
    row = ledger.current(NS, "patient", "medication")
    assert row is not None and row.valid_from == day(2) and row.provenance == ("t2", "t3", "t4")
    last = ledger.decisions(NS, "patient", "medication")[-1]
    assert (last.outcome, last.input["by"], last.input["source"]) == (
        "promoted",
        "source",
        "pharmacy",
    )
    # as of the time it was held, the ledger said aspirin
    held_at = ledger.decisions(NS, "patient", "medication")[0].decided_at
    past = ledger.as_of(NS, "patient", "medication", day(3), held_at)
    assert past is not None and past.object == "aspirin"


def test_confirm_call_reject_displace_and_late(redis_settings: Settings) -> None:
    ledger = make(redis_settings, table({"relation": "medication", "policy": "confirm"}))
    put(ledger, "aspirin", 1, "t1")
    assert put(ledger, "ibuprofen", 2, "t2") == "pending"
    assert put(ledger, "codeine", 0.5, "t3") == "late"  # older than the incumbent
    assert put(ledger, "naproxen", 3, "t4") == "pending"  # displaces the older held value
    assert ledger.confirm(NS, "patient", "medication", "ibuprofen").outcome == "mismatch"
    result = ledger.confirm(NS, "patient", "medication", "naproxen", by="dr-who")
    assert result.outcome == "promoted" and "c-t1" in result.closed_chunks
    assert current(ledger) == ["naproxen"]
    assert put(ledger, "morphine", 4, "t5") == "pending"
    assert ledger.confirm(NS, "patient", "medication", reject=True).outcome == "rejected"
    assert current(ledger) == ["naproxen"]
    assert outcomes(ledger) == [
        "pending",
        "late",
        "displaced",
        "pending",
        "promoted",
        "pending",
        "rejected",
    ]
    promoted = ledger.decisions(NS, "patient", "medication")[4]
    assert promoted.input == {"rule": "confirmed by a call", "by": "call", "who": "dr-who"}
    assert ledger.confirm(NS, "patient", "medication").outcome == "none"


def test_confirm_expires(redis_settings: Settings) -> None:
    ledger = make(
        redis_settings,
        table({"relation": "medication", "policy": "confirm", "confirm_ttl_s": 0.05}),
    )
    put(ledger, "aspirin", 1, "t1")
    assert put(ledger, "ibuprofen", 2, "t2") == "pending"
    time.sleep(0.1)
    assert ledger.pending(NS) == []  # reads already leave it out
    [gone] = ledger.expire(NS)
    assert gone.outcome == "expired" and gone.object == "ibuprofen"
    assert current(ledger) == ["aspirin"] and outcomes(ledger) == ["pending", "expired"]
    row = next(r for r in ledger.versions(NS, "patient", "medication") if r.object == "ibuprofen")
    assert row.status == "expired" and row.valid_to == row.valid_from


def test_a_judge_is_consulted_once_per_question_and_replayed(redis_settings: Settings) -> None:
    calls: list[PendingConflict] = []

    def judge(conflict: PendingConflict) -> str:
        calls.append(conflict)
        return random.choice(["confirm", "reject", "hold"])  # nondeterministic on purpose

    rules = table({"relation": "medication", "policy": "confirm"})
    prefix = redis_settings.storage.key_prefix
    client = open_redis(redis_settings.storage)
    finals = []
    for _ in range(3):
        ledger = SupersessionLedger(client, Keyspace(prefix), policies=rules, judge=judge)  # type: ignore[arg-type]
        put(ledger, "aspirin", 1, "t1")
        put(ledger, "ibuprofen", 2, "t2")
        finals.append((current(ledger), outcomes(ledger)))
        # a rebuilt ledger: wipe its keys, keep the judgement log
        for key in client.scan_iter(f"{prefix}:{{{NS}}}:ledger*"):
            client.delete(key)
    assert len(calls) == 1 and finals[0] == finals[1] == finals[2]


# --- atomicity and replay -------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["latest", "evidence", "confirm", "accumulate"])
def test_concurrent_writers_on_one_key(real_redis_settings: Settings, policy: str) -> None:
    rules = table({"relation": "medication", "policy": policy})
    writers, each = 8, 5
    barrier = threading.Barrier(writers)

    def work(w: int) -> None:
        ledger = make(real_redis_settings, rules)  # its own connection
        barrier.wait()
        for i in range(each):
            put(ledger, f"v{w}-{i}", 1 + w + i / 10, f"w{w}-{i}", source=f"s{w}")

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ledger = make(real_redis_settings, rules)
    rows = ledger.versions(NS, "patient", "medication")
    assert ledger.stats(NS).assertions == writers * each  # no lost update
    open_rows = [r for r in rows if r.open]
    assert len(open_rows) == (writers * each if policy == "accumulate" else 1)
    assert sum(r.pending for r in rows) <= 1
    stated = {f"v{w}-{i}" for w in range(writers) for i in range(each)}
    assert {r.object for r in rows} == stated  # every value has a row
    losers = {d.loser.object for d in ledger.decisions(NS, "patient", "medication") if d.loser}
    winners = {r.object for r in open_rows if r.status is None}
    if policy != "accumulate":
        pending = {r.object for r in rows if r.pending}
        assert stated - winners - pending <= losers  # every loser is in the audit


def _stream(n: int = 40) -> list[tuple[str, float, str, str]]:
    rng = random.Random(7)
    return [
        (
            f"v{rng.randrange(5)}",
            float(rng.randrange(30)) + i / 1000,
            f"t{i}",
            rng.choice(["gp", "chat", "ehr"]),
        )
        for i in range(n)
    ]


def _snapshot(ledger: SupersessionLedger, ns: str) -> object:
    out: dict[str, Any] = {}
    for subject, relation in ledger.keys_of(ns):
        rows = ledger.versions(ns, subject, relation)
        out[f"{subject}/{relation}"] = sorted(
            (
                r.object,
                r.valid_from.isoformat(),
                r.valid_to.isoformat() if r.valid_to else "",
                sorted(r.provenance),
                r.status or "",
            )
            for r in rows
        )
        out[f"{subject}/{relation}/decisions"] = [
            (
                d.policy,
                d.outcome,
                d.winner.object if d.winner else None,
                d.loser.object if d.loser else None,
                json.dumps(d.input, sort_keys=True),
            )
            for d in ledger.decisions(ns, subject, relation)
        ]
    return out


RULES = table(
    {"relation": "medication", "policy": "confirm"},
    {"relation": "dose", "policy": "evidence"},
    {"relation": "tags", "policy": "accumulate"},
    trust=(("ehr", 2.0),),
)


def _ingest(ledger: SupersessionLedger, ns: str, stream: list[tuple[str, float, str, str]]) -> None:
    for obj, when, turn, src in stream:
        for rel in ("medication", "dose", "tags", "port"):
            fact = Fact(subject="patient", relation=rel, object=obj)
            ledger.assert_fact(
                ns, fact, ts=day(when), turn_id=turn, chunk_id=f"c-{turn}", source=src
            )


def test_replay_gives_identical_ledgers_and_decisions(real_redis_settings: Settings) -> None:
    ledger = make(real_redis_settings, RULES)
    stream = _stream()
    _ingest(ledger, "replay-a", stream)
    _ingest(ledger, "replay-b", stream)
    _ingest(ledger, "replay-b", stream)  # redelivery of the whole stream changes nothing
    a, b = _snapshot(ledger, "replay-a"), _snapshot(ledger, "replay-b")
    assert a == b
    assert ledger.stats("replay-b").duplicates == len(stream) * 4


def test_two_workers_in_different_orders_agree(real_redis_settings: Settings) -> None:
    """Two workers split the stream and each ingests its half in its own order; the final
    state (current values, held values) matches a single in-order ingest. For latest, whole
    versions match (order-free by construction); evidence's winner is order-free too."""
    stream = _stream()
    ref = make(real_redis_settings, RULES)
    _ingest(ref, "order-ref", sorted(stream, key=lambda s: s[1]))
    ledger = make(real_redis_settings, RULES)
    halves = [stream[0::2], stream[1::2][::-1]]
    threads = [
        threading.Thread(target=_ingest, args=(make(real_redis_settings, RULES), "order-two", h))
        for h in halves
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    def state(ns: str, rel: str) -> object:
        rows = ledger.versions(ns, "patient", rel)
        if rel == "port":  # latest: every version, in valid time
            return [(r.object, r.valid_from, r.valid_to) for r in rows if r.status is None]
        return sorted(r.object for r in rows if r.open)

    for rel in ("port", "dose", "tags"):
        assert state("order-ref", rel) == state("order-two", rel), rel
    assert ledger.stats("order-two").assertions == ledger.stats("order-ref").assertions


def test_decision_rows_parse_round_trip() -> None:
    raw = json.dumps(
        {
            "n": 1,
            "at": "1",
            "policy": "latest",
            "rule": "default",
            "outcome": "superseded",
            "winner": False,
            "loser": False,
            "input": {},
        }
    )
    d = LedgerDecision.parse(raw, "s", "r")
    assert d.winner is None and d.to_dict()["loser"] is None


def test_ledger_cli_policies_pending_confirm_decisions(
    real_redis_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from gcmem.cli import app

    path = tmp_path / "policies.yaml"
    path.write_text(
        "trust: {ehr: 2}\nrules:\n"
        "  - {relation: medication, policy: confirm, confirm_ttl_s: 3600, name: meds}\n"
        "  - {relation: '* speak* _', policy: accumulate}\n"
    )
    s = real_redis_settings
    monkeypatch.setenv("GCMEM_LEDGER_POLICY_FILE", str(path))
    monkeypatch.setenv("GCMEM_KEY_PREFIX", s.storage.key_prefix)
    monkeypatch.setenv("GCMEM_REDIS_URL", str(s.storage.redis_url))
    ledger = make(s, PolicyTable.from_settings(load_settings().ledger))
    put(ledger, "aspirin", 1, "t1", source="gp")
    put(ledger, "ibuprofen", 2, "t2", source="chat")
    runner = CliRunner()

    def run(*args: str) -> Any:
        out = runner.invoke(app, ["ledger", *args, "--namespace", NS, "--json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.output)

    listed = runner.invoke(app, ["ledger", "policies", "--json"])
    table_rows = json.loads(listed.output)["rules"]
    assert [r["policy"] for r in table_rows] == ["confirm", "accumulate", "accumulate", "latest"]
    assert table_rows[2]["rule"] == BUILTIN_RULE and "certified in" in table_rows[2]["relations"]
    assert table_rows[0]["name"] == "meds" and json.loads(listed.output)["trust"] == {"ehr": 2}
    text = runner.invoke(app, ["ledger", "policies"]).output
    assert all(word in text for word in ("confirm", "accumulate", "3600", "speak*", "default"))
    [held] = run("pending")
    assert held["pending"]["object"] == "ibuprofen" and held["incumbent"]["object"] == "aspirin"
    decided = run("decisions", "patient", "medication")
    assert [(d["outcome"], d["rule"]) for d in decided] == [("pending", "rule 1 (meds)")]
    confirmed = runner.invoke(
        app,
        [
            "ledger",
            "confirm",
            "patient",
            "medication",
            "ibuprofen",
            "--by",
            "nurse",
            "--namespace",
            NS,
        ],
    )
    assert confirmed.exit_code == 0 and json.loads(confirmed.output)["outcome"] == "promoted"
    again = runner.invoke(app, ["ledger", "confirm", "patient", "medication", "--namespace", NS])
    assert again.exit_code == 1 and json.loads(again.output)["outcome"] == "none"
    hist = runner.invoke(app, ["ledger", "history", "patient", "medication", "--namespace", NS])
    assert "resolutions" in hist.output and "promoted" in hist.output and "pending" in hist.output
    row = run("as-of", "patient", "medication", "--valid-time", day(3).isoformat())
    assert row["object"] == "ibuprofen"
    assert [d["outcome"] for d in row["decisions"]] == ["pending", "promoted"]
    assert row["decisions"][1]["input"] == {
        "rule": "confirmed by a call",
        "by": "call",
        "who": "nurse",
    }
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules: [{policy: never}]")
    monkeypatch.setenv("GCMEM_LEDGER_POLICY_FILE", str(bad))
    broken = runner.invoke(app, ["ledger", "policies"])
    assert broken.exit_code == 2 and "bad.yaml" in broken.output


@pytest.mark.parametrize(
    ("relation", "many"),
    [
        ("certified in", True),  # a grammar relation that ends on the phrase
        ("is consumed by", True),
        ("marta is certified in _", True),  # a frame whose slot follows it
        ("marta is certified in _ , renewed last spring", True),
        ("dad's got into _", True),
        ("i speak _", True),
        ("hana stays away from _", True),  # what someone avoids: one more thing
        ("dad avoids _ since his scan", True),
        ("service used by billing listens on port _", False),  # elsewhere in the frame
        ("speaker", False),  # a word, not the phrase
        ("port", False),
        ("uses", False),  # "uses MySQL" then "uses Postgres" is a migration
        ("welcome _ to the data platform team", True),  # a welcome adds a member
        ("panel for staff backend role : _ , on the system design round", True),
        ("the guests : _", True),  # a label naming a group of people lists them
        ("team lead : _", False),  # one person
        ("tags : _", False),  # a config key's line holds its whole value
        ("panel room : 4b _", False),  # the slot is not the label's
        # a directive its file repeats, as a line's whole frame
        ("/etc/resolv.conf > nameserver _", True),
        ("upstream payments > server _ ;", True),
        ("nameserver _", True),
        # ... with its own words after the slot: a suite's components, a listener's options
        ("/etc/apt/sources.list > deb _ main universe", True),
        ("deb _ focal main", True),
        ("server > listen _ ssl http2 ;", True),
        ("allow _ hours for drive", False),  # words of a sentence, not a line's
        ("server _ check", False),
        # ... or quoted in a sentence that names its file
        ("nameserver _ in resolv.conf on lab vms", True),
        ("deb _ main in sources.list on ci image", True),
        ("server _ ; in checkout upstream block ( nginx.conf on lb-1", True),
        # ... or after a label's colon
        ("haproxy backend api : server _ check", True),
        # ... or after a verb that says a named file or block holds it
        ("api.conf upstream block has server _", True),
        ("our team has server _", False),  # no file or block named
        ("point to server _", False),
        ("brewfile in dotfiles repo : brew _", True),
        # a whole line quoted after a label that names its file is one of its lines
        ("brewfile in dotfiles repo : _", True),
        ("inventory/prod.ini under [kafka] : _", True),
        (".gitignore in web repo : _", True),  # a dotfile is a file
        ("prometheus.yml static target : - _", True),  # a list's item
        ("db host : _", False),  # no file: the host's one value
        (".github/workflows/linux.yml > name : _", False),  # an excerpt line's own key
        ("nameserver _ is quad9", False),  # no file: a sentence about one nameserver
        ("server > client_max_body_size _", False),  # a block's context, not the line
        ("registered as _ in the print server", False),  # a word of a sentence
        ("we swim at the _ pool", False),
        ("zainab's signed up for _ this term", True),  # one more course
        ("leo's taking _ this semester", True),  # the courses of a term are several
        ("choir's doing _ at christmas concert", True),  # and the pieces of a concert
        ("band is playing _ at nine", False),
        ("priya plays _ in community orchestra", True),  # the instruments someone plays
        ("kalinowski lab / funded by", True),  # a lab's grants, a club's sponsors
        ("under-12s / sponsored by", True),
        ("dad is taking _ daily", False),  # a dose, a route: one
        ("gus has gotten really into _", True),  # one more interest
        ("elif has _ passport", True),  # a second nationality is one more
        ("passport number", False),
        ("we pay for _", True),  # one more bill or subscription
        ("we pay _ for parking", False),
        ("dad / big retirement hobby", True),  # someone's hobbies are several
        ("dad's big retirement hobby is _", True),
        ("we're on _ hobby tier", False),  # a plan's name, not a hobby
        ("git remote add _", True),  # what is added is one more
        ("plug _ in init.vim", True),  # a plugin manager's line
        ("signed up at _", False),  # a gym joined: the member's one gym
        ("we keep _ in lab", True),  # what a lab keeps or a shop stocks is one more
        ("the shop stocks _", True),
        ("we keep spare key in _", False),  # where a thing is kept: one place
        ("our candles are stocked at _", True),  # and where it is stocked: one more shop
        ("put _ on harbour inn setlist", True),  # what is put on a list: one more item
        ("put _ on the agenda for friday", True),
        ("put _ on hold", False),
        ("book club this term is reading _ pick", True),  # a term's books are several
        ("book club this month is reading _", False),  # a month's pick is one
        # the languages a work is translated into
        ("heronsgate doc / translated into", True),
        ("kestrel notes ships _ translation", True),
        ("translation / is", False),
        # firewall rules, and a list's elements by their first key after a file's name
        ("on vps : ufw allow _", True),  # a firewall's rules: one more
        ("ci.yml , strategy.matrix : - os : _", True),
        ("ci.yml > strategy > matrix > os : _", False),
        ("gitignore : _", True),  # a dotfile's line, the normaliser having taken its dot
        # who may use a thing, a collection's copy, a list's member, a tenant's flags
        ("kenji was granted access to _", True),
        ("club owns copy of _", True),
        ("y9 summer reading list includes _", True),
        ("free tier now includes _ of storage", False),  # an amount that changes
        ("acme tenant has _ turned on", True),
        ("acme tenant has _ enabled , they asked for it", True),
        ("maya's taking _ this year , mr okafor's section", True),
        ("ivo's got his _ , passed it on second go", True),  # one more thing got
        ("ivo's got his desk by _", False),
        ("direct debit out of joint account : _ , 1st of month", True),
        ("rent is paid by direct debit : _", False),  # the label is no list of debits
        # a file that lists people, one a line
        ("maintainers file", True),
        ("codeowners", True),
        ("owners", False),  # the owners of a business may change hands
        ("maintainer", False),
        # a file line's place: the line there is replaced, and the lines around it are no
        # relation of its value
        ("app.py > line after helper factory . before scopefunc parameter was added", False),
        ("ci.yml > edited line - rustup component add _ after script: before - cargo", False),
    ],
)
def test_known_multi_valued_relations(relation: str, many: bool) -> None:
    assert multi_valued(relation) is many


@pytest.mark.parametrize(
    ("subject", "many"),
    [
        ("confocal access granted", True),  # an access list names one more person
        ("access approved", True),
        ("auto-pay", True),  # on for one more bill
        ("access level", False),
        ("confocal booking", False),
    ],
)
def test_a_label_granting_access_lists_its_holders(subject: str, many: bool) -> None:
    assert multi_valued("is", subject) is many
    assert not multi_valued("booked by", subject)  # the label's own value only
    table = PolicyTable()
    assert (table.resolve("ns", subject, "is").policy == "accumulate") is many
    assert multi_valued("is on", subject) is many  # "auto-pay is on for the car insurance"


def test_the_built_in_table_comes_after_the_rules_and_can_be_turned_off() -> None:
    latest = PolicyRule(relation="certified in", policy="latest")
    assert PolicyTable().resolve("ns", "marta", "certified in") == Resolution(
        "accumulate", BUILTIN_RULE
    )
    assert PolicyTable(rules=(latest,)).resolve("ns", "marta", "certified in").policy == "latest"
    off = PolicyTable(known_multi_valued=False)
    assert off.resolve("ns", "marta", "certified in").policy == "latest"
    assert [r["rule"] for r in off.describe()] == ["default"]
