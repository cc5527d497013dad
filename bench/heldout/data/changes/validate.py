import json, os, re, sys, collections, datetime as dt
HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ["id","family","turns","query","current_turns","stale_turns","still_true_turns","current_value","stale_values"]
FAMS = {"keyed_prose","keyed_restated","code_config","paragraph_revision","behavioural"}
errs, warns = [], []
ids = set(); counts = collections.Counter()
for split in ("dev","test"):
    for ln, line in enumerate(open(os.path.join(HERE, split+".jsonl"), encoding="utf-8"), 1):
        r = json.loads(line); rid = r.get("id", f"{split}:{ln}")
        E = lambda m: errs.append(f"{rid}: {m}")
        W = lambda m: warns.append(f"{rid}: {m}")
        if list(r.keys()) != KEYS: E(f"keys {list(r.keys())}")
        if r["family"] not in FAMS or not rid.startswith(r["family"]+"-"): E("family")
        if rid in ids: E("dup id")
        ids.add(rid); counts[(r["family"], split)] += 1
        T = r["turns"]
        if not 4 <= len(T) <= 12: E(f"{len(T)} turns")
        tids = [t["id"] for t in T]
        if len(set(tids)) != len(tids): E("dup turn ids")
        for t in T:
            if set(t) != {"id","ts","text"} or not t["text"].strip(): E(f"turn schema {t['id']}")
            if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", t["ts"]): E("ts fmt")
        tss = [dt.datetime.strptime(t["ts"], "%Y-%m-%dT%H:%M:%SZ") for t in T]
        if any(b <= a for a, b in zip(tss, tss[1:])): E("ts not increasing")
        if (tss[-1]-tss[0]).days < 14: W("span < 2 weeks")
        C, S, K = r["current_turns"], r["stale_turns"], r["still_true_turns"]
        parts = C + S + K
        if sorted(parts) != sorted(tids) or len(parts) != len(set(parts)): E("partition")
        if not C or not S: E("empty current/stale")
        if not 2 <= len(K) <= 5: E(f"{len(K)} still-true turns")
        if r["family"] == "keyed_restated" and not 2 <= len(S) <= 6: E(f"{len(S)} stale turns")
        if r["family"] != "keyed_restated" and len(S) != 1: W(f"{len(S)} stale turns")
        txt = {t["id"]: t["text"] for t in T}; pos = {t["id"]: i for i, t in enumerate(T)}
        if max(pos[s] for s in S) > min(pos[c] for c in C): E("stale after current")
        cv, sv = r["current_value"], r["stale_values"]
        if not cv or not sv or not isinstance(sv, list): E("values")
        if not any(cv in txt[c] for c in C): E(f"current_value {cv!r} not in current turn")
        for c in C:
            if cv not in txt[c]: W(f"current value missing from current turn {c}")
        for s in S:
            if cv in txt[s]: E(f"current value {cv!r} in stale turn {s}")
            if cv.lower() in txt[s].lower(): W(f"current value (ci) in stale {s}")
            if not any(v in txt[s] for v in sv): E(f"stale turn {s} has no stale value")
        for v in sv:
            if not any(v in txt[s] for s in S): E(f"stale value {v!r} not in stale turn")
            for o in C + K:
                if v in txt[o]: E(f"stale value {v!r} in {o}")
                elif v.lower() in txt[o].lower(): W(f"stale value {v!r} (ci) in {o}")
            if v == cv: E("stale == current")
        for k in K:
            if cv in txt[k]: W(f"current value in still-true {k}")
        if r["family"] == "paragraph_revision":
            for t in S + C:
                body = txt[t].split("\n")[-1]
                n = len(body.split())
                if not 50 <= n <= 90: E(f"passage {t} has {n} words")
        if not r["query"].endswith("?"): W("query no ?")
        if cv in r["query"] or any(v in r["query"] for v in sv): W("value leaks into query")
print("counts:", dict(sorted(counts.items())))
print(f"{len(errs)} errors, {len(warns)} warnings")
for e in errs: print("ERR ", e)
for w in warns: print("WARN", w)
sys.exit(1 if errs else 0)
