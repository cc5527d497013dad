import json, re, sys, collections
from datetime import datetime
CHANGE={"keyed_prose":16,"keyed_restated":16,"code_config":16,"paragraph_revision":16,"behavioural":16}
STATIC={"parallel_keys":12,"elaborations":12,"compatible_opposites":12,"multi_valued":12,"same_topic_unrelated":12,"static_restated":12,"long_paragraphs":12}
TS=re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
errs=[]; counts=collections.Counter(); ids=set(); texts=collections.Counter()
def E(i,m): errs.append(f"{i}: {m}")
def wc(s): return len(s.split())
for fn,fams in (("changes.jsonl",CHANGE),("static.jsonl",STATIC)):
    for ln,line in enumerate(open(f"/work/test5/{fn}"),1):
        r=json.loads(line); i=r.get("id",f"{fn}:{ln}")
        keys={"id","family","turns","query","current_turns","stale_turns","still_true_turns","current_value","stale_values"}
        if set(r)!=keys: E(i,f"keys {set(r)^keys}")
        fam=r["family"]
        if fam not in fams: E(i,f"family {fam} not allowed in {fn}")
        if not re.fullmatch(re.escape(fam)+r"-\d{3}",i): E(i,"bad id format")
        if i in ids: E(i,"duplicate id")
        ids.add(i); counts[fam]+=1
        T=r["turns"]
        if not 4<=len(T)<=9: E(i,f"{len(T)} turns")
        tids=[t["id"] for t in T]
        if tids!=[f"t{k}" for k in range(1,len(T)+1)]: E(i,f"turn ids {tids}")
        prev=None
        for t in T:
            if set(t)!={"id","ts","text"}: E(i,"turn keys")
            if not TS.match(t["ts"]): E(i,f"bad ts {t['ts']}")
            d=datetime.strptime(t["ts"],"%Y-%m-%dT%H:%M:%SZ")
            if prev and d<=prev: E(i,f"ts not increasing at {t['id']}")
            prev=d
            if not t["text"].strip(): E(i,"empty text")
            texts[t["text"]]+=1
        span=(prev-datetime.strptime(T[0]["ts"],"%Y-%m-%dT%H:%M:%SZ")).days
        if span<14: E(i,f"time span only {span} days")
        labs=r["current_turns"]+r["stale_turns"]+r["still_true_turns"]
        if sorted(labs)!=sorted(tids) or len(labs)!=len(set(labs)): E(i,"labels do not cover turns exactly once")
        if not r["current_turns"]: E(i,"no current turns")
        if not isinstance(r["query"],str) or not r["query"].strip(): E(i,"empty query")
        byid={t["id"]:t for t in T}; cv=r["current_value"].lower()
        if not cv.strip(): E(i,"empty current_value")
        for c in r["current_turns"]:
            if cv not in byid[c]["text"].lower(): E(i,f"current_value not in {c}")
        if fn=="static.jsonl":
            if r["stale_turns"] or r["stale_values"]: E(i,"static instance has stale data")
        else:
            if not r["stale_turns"] or not r["stale_values"]: E(i,"change instance lacks stale data")
            for sv in r["stale_values"]:
                s=sv.lower()
                if not s.strip(): E(i,"empty stale value")
                if not any(s in byid[x]["text"].lower() for x in r["stale_turns"]): E(i,f"stale value {sv!r} not in any stale turn")
                for c in r["current_turns"]:
                    if s in byid[c]["text"].lower(): E(i,f"stale value {sv!r} appears in current turn {c}")
                if s in cv or cv in s: E(i,f"stale value {sv!r} overlaps current value")
            # every stale turn should contain some stale value
            for x in r["stale_turns"]:
                if not any(s.lower() in byid[x]["text"].lower() for s in r["stale_values"]): E(i,f"stale turn {x} contains no stale value")
            # stale turns must precede the latest current turn
            lastc=max(tids.index(c) for c in r["current_turns"])
            for x in r["stale_turns"]:
                if tids.index(x)>lastc: E(i,f"stale turn {x} after last current turn")
        if fam=="keyed_restated" and not 2<=len(r["stale_turns"])<=4: E(i,f"keyed_restated needs 2-4 stale turns, has {len(r['stale_turns'])}")
        if fam=="paragraph_revision":
            for x in r["stale_turns"]+r["current_turns"]:
                n=wc(byid[x]["text"])
                if not 40<=n<=90: E(i,f"paragraph {x} has {n} words")
        if fam=="long_paragraphs":
            long=[t for t in T if 50<=wc(t["text"])<=90]
            if len(long)<2: E(i,"fewer than 2 paragraphs of 50-90 words")
            for t in T:
                if wc(t["text"])>90: E(i,f"{t['id']} exceeds 90 words")
            for c in r["current_turns"]:
                if not 50<=wc(byid[c]["text"])<=90: E(i,f"current paragraph {c} has {wc(byid[c]['text'])} words")
        if fam=="static_restated" and len(T)<3: E(i,"too few turns")
for txt,n in texts.items():
    if n>1: errs.append(f"duplicate turn text used {n}x: {txt[:60]!r}")
for fam,want in {**CHANGE,**STATIC}.items():
    print(f"{fam:22s} {counts[fam]:3d} / {want}")
print(f"total {sum(counts.values())}")
if errs:
    print(f"{len(errs)} ERRORS"); print("\n".join(errs)); sys.exit(1)
print("ALL CHECKS PASSED")
