import json, collections, re
ok = True
def err(*a):
    global ok; ok = False; print("ERR", *a)
seen = set(); counts = collections.Counter()
KEYS = ["id","family","turns","query","current_turns","stale_turns","still_true_turns","current_value","stale_values"]
FAMS = {"parallel_keys","elaborations","compatible_opposites","multi_valued","same_topic_unrelated","static_restated","long_paragraphs"}
texts = collections.Counter()
for split in ["dev", "test"]:
    for ln, line in enumerate(open(f"/work/heldout/static/{split}.jsonl"), 1):
        r = json.loads(line)
        if list(r.keys()) != KEYS: err(split, ln, "keys", list(r.keys()))
        iid = r["id"]
        if iid in seen: err("dup id", iid)
        seen.add(iid)
        if r["family"] not in FAMS or not iid.startswith(r["family"] + "-"): err(iid, "family")
        counts[(r["family"], split)] += 1
        T = r["turns"]
        if not 4 <= len(T) <= 9: err(iid, "turn count", len(T))
        ids = [t["id"] for t in T]
        if len(set(ids)) != len(ids): err(iid, "dup turn ids")
        ts = [t["ts"] for t in T]
        for s in ts:
            if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s): err(iid, "ts fmt", s)
        if any(a >= b for a, b in zip(ts, ts[1:])): err(iid, "ts not increasing")
        for t in T:
            if set(t) != {"id","ts","text"} or not t["text"].strip(): err(iid, "turn schema")
            texts[t["text"]] += 1
            if r["family"] == "long_paragraphs":
                w = len(t["text"].split())
                if not 50 <= w <= 90: err(iid, t["id"], "words", w)
        C, S, R = r["current_turns"], r["stale_turns"], r["still_true_turns"]
        allp = C + S + R
        if sorted(allp) != sorted(ids) or len(allp) != len(set(allp)): err(iid, "partition")
        if not C: err(iid, "no current")
        if not isinstance(r["query"], str) or not r["query"].endswith("?"): err(iid, "query")
        tx = {t["id"]: t["text"] for t in T}
        cv = r["current_value"]
        if not cv or not any(cv in tx[c] for c in C): err(iid, "cv not in current", cv)
        sv = r["stale_values"]
        if bool(S) != bool(sv): err(iid, "stale turns/values mismatch")
        if S and r["family"] not in {"parallel_keys", "same_topic_unrelated"}: err(iid, "stale in wrong family")
        for v in sv:
            if not any(v in tx[s] for s in S): err(iid, "sv not in stale", v)
            for o in C + R:
                if v in tx[o]: err(iid, "sv leaks into", o, v)
        for s in S:
            if not any(v in tx[s] for v in sv): err(iid, "stale turn without value", s)
        if cv in sv: err(iid, "cv == sv")
dups = [t for t, c in texts.items() if c > 1]
if dups: err("duplicate turn texts", dups[:5])
for k in sorted(counts): print(k, counts[k])
fam_stale = collections.Counter()
for split in ["dev","test"]:
    for line in open(f"/work/heldout/static/{split}.jsonl"):
        r = json.loads(line)
        if r["stale_turns"]: fam_stale[r["family"]] += 1
print("with change:", dict(fam_stale))
print("OK" if ok else "FAILED", "total", len(seen))
