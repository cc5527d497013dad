import json, random, datetime as dt, importlib, sys
sys.path.insert(0, '.')
import common
MODS = ["f1_parallel_keys","f2_elaborations","f3_compatible_opposites","f4_multi_valued",
        "f5_same_topic_unrelated","f6_static_restated","f7_long_paragraphs"]
for m in MODS: importlib.import_module(m)
ORDER = ["parallel_keys","elaborations","compatible_opposites","multi_valued",
         "same_topic_unrelated","static_restated","long_paragraphs"]
dev, test = [], []
for fam in ORDER:
    insts = common.INSTANCES[fam]
    assert len(insts) == 40, (fam, len(insts))
    rng = random.Random("split-" + fam)
    dev_idx = set(rng.sample(range(40), 10))
    for i, x in enumerate(insts):
        turns = list(x["turns"]); cur = list(x["cur"]); stale = list(x["stale"])
        if fam == "long_paragraphs" and i < 30 and i % 3:
            j = 3 if i % 3 == 1 else 4  # move the answering paragraph to a different slot
            a, b = 2, j
            turns[a-1], turns[b-1] = turns[b-1], turns[a-1]
            sw = lambda k: b if k == a else (a if k == b else k)
            cur = [sw(k) for k in cur]; stale = [sw(k) for k in stale]
        r = random.Random(f"ts-{fam}-{i}")
        t = dt.datetime(2020, 1, 1) + dt.timedelta(days=r.randint(0, 1500), hours=r.randint(6, 22), minutes=r.randint(0, 59))
        spread = r.choice(["weeks", "months", "years"])
        out_turns = []
        for k, text in enumerate(turns, 1):
            if k > 1:
                if spread == "weeks": gap = r.randint(6, 30)
                elif spread == "months": gap = r.randint(20, 120)
                else: gap = r.randint(60, 300)
                t = t + dt.timedelta(days=gap, hours=r.randint(-5, 5), minutes=r.randint(0, 59))
            out_turns.append({"id": f"t{k}", "ts": t.strftime("%Y-%m-%dT%H:%M:00Z"), "text": text})
        n = len(turns)
        cur_ids = [f"t{k}" for k in sorted(cur)]
        stale_ids = [f"t{k}" for k in sorted(stale)]
        rest = [f"t{k}" for k in range(1, n+1) if k not in cur and k not in stale]
        rec = {"id": f"{fam}-{i+1:03d}", "family": fam, "turns": out_turns, "query": x["q"],
               "current_turns": cur_ids, "stale_turns": stale_ids, "still_true_turns": rest,
               "current_value": x["cv"], "stale_values": x["sv"]}
        (dev if i in dev_idx else test).append(rec)
for name, recs in [("dev", dev), ("test", test)]:
    with open(f"/work/heldout/static/{name}.jsonl", "w") as f:
        for rec in recs: f.write(json.dumps(rec, ensure_ascii=False) + "\n")
print(len(dev), len(test))
