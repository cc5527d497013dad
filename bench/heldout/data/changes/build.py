import json, random, re, datetime as dt, sys, os
HERE = os.path.dirname(os.path.abspath(__file__))
FAMS = ["keyed_prose", "keyed_restated", "code_config", "paragraph_revision", "behavioural"]

def parse(fam):
    txt = open(os.path.join(HERE, "src", fam + ".txt"), encoding="utf-8").read()
    blocks = [b for b in re.split(r"\n\s*\n", txt.strip()) if b.strip()]
    out = []
    for b in blocks:
        inst = {"turns": []}
        last_stale = None
        for line in b.split("\n"):
            tag, _, rest = line.partition(" ")
            if tag == "Q:": inst["query"] = rest.strip()
            elif tag == "C:": inst["current_value"] = rest.strip()
            elif tag == "S:": inst["stale_values"] = [x.strip() for x in rest.split("||")]
            elif tag in ("s", "t", "c"):
                text = rest.replace("\\n", "\n")
                inst["turns"].append((tag, text))
                if tag == "s": last_stale = text
            elif tag == "r":
                lead = ""
                if "||" in rest:
                    lead, rest = [x.strip() for x in rest.split("||", 1)]
                text = last_stale
                for rep in rest.split(";;"):
                    old, new = [x.strip() for x in rep.split("=>")]
                    assert old in text, (fam, old)
                    text = text.replace(old, new)
                if lead: text = lead + "\n" + text
                inst["turns"].append(("c", text))
            else:
                raise ValueError(f"bad line in {fam}: {line!r}")
        out.append(inst)
    return out

def build():
    rng = random.Random(20240917)
    dev, test = [], []
    for fam in FAMS:
        insts = parse(fam)
        assert len(insts) == 40, (fam, len(insts))
        order = list(range(40)); rng.shuffle(order)
        dev_idx = set(order[:10])
        for i, inst in enumerate(insts):
            start = dt.datetime(2021, 1, 4) + dt.timedelta(days=rng.randint(0, 1200), minutes=rng.randint(7*60, 20*60))
            ts = start
            turns, cur, stale, still = [], [], [], []
            for k, (tag, text) in enumerate(inst["turns"], 1):
                if k > 1:
                    lo, hi = (4, 35) if fam == "keyed_restated" else (2, 90)
                    ts = ts + dt.timedelta(days=rng.randint(lo, hi), minutes=rng.randint(-300, 300))
                tid = f"t{k}"
                turns.append({"id": tid, "ts": ts.strftime("%Y-%m-%dT%H:%M:00Z"), "text": text})
                {"c": cur, "s": stale, "t": still}[tag].append(tid)
            rec = {"id": f"{fam}-{i+1:03d}", "family": fam, "turns": turns, "query": inst["query"],
                   "current_turns": cur, "stale_turns": stale, "still_true_turns": still,
                   "current_value": inst["current_value"], "stale_values": inst["stale_values"]}
            (dev if i in dev_idx else test).append(rec)
    for name, recs in (("dev", dev), ("test", test)):
        with open(os.path.join(HERE, name + ".jsonl"), "w", encoding="utf-8") as f:
            for r in recs: f.write(json.dumps(r, ensure_ascii=False) + "\n")

if __name__ == "__main__":
    build()
