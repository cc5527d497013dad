import json, re, sys
FILES = {"changes.jsonl": ["keyed_prose","keyed_restated","code_config","paragraph_revision","behavioural"],
         "static.jsonl": ["parallel_keys","elaborations","compatible_opposites","multi_valued","same_topic_unrelated","static_restated","long_paragraphs"]}
LAB = {"S":"stale_turns","C":"current_turns","K":"still_true_turns"}
def parse(fam):
    raw = open(f"/work/heldout3/src/{fam}.txt").read()
    out = []
    for blk in [b for b in raw.split("\n---\n") if b.strip()]:
        q = cv = None; sv = []; turns = []; labs = {"stale_turns":[],"current_turns":[],"still_true_turns":[]}
        for line in blk.strip().split("\n"):
            if not line.strip() or line.startswith("#"): continue
            if line.startswith("Q: "): q = line[3:].strip(); continue
            if line.startswith("CV: "): cv = line[4:].strip(); continue
            if line.startswith("SV: "): sv = [s.strip() for s in line[4:].split(" || ")]; continue
            m = re.match(r"^([SCK]) (\d{4}-\d\d-\d\d) (\d\d:\d\d) \| (.*)$", line)
            if not m: sys.exit(f"{fam}: bad line: {line!r}")
            tid = f"t{len(turns)+1}"
            turns.append({"id":tid,"ts":f"{m[2]}T{m[3]}:00Z","text":m[4].replace("\\n","\n")})
            labs[LAB[m[1]]].append(tid)
        n = len(out)
        out.append({"id":f"{fam}-{n:03d}","family":fam,"turns":turns,"query":q,
                    "current_turns":labs["current_turns"],"stale_turns":labs["stale_turns"],
                    "still_true_turns":labs["still_true_turns"],"current_value":cv,"stale_values":sv})
    return out
for fn, fams in FILES.items():
    with open(f"/work/heldout3/{fn}","w") as f:
        for fam in fams:
            try: recs = parse(fam)
            except FileNotFoundError: continue
            for r in recs: f.write(json.dumps(r, ensure_ascii=False)+"\n")
