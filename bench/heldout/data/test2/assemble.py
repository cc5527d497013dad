"""Assemble hand-written instance text files (src/*.txt) into JSONL.
Format per instance (blocks separated by a line '---'):
  F: family
  Q: query
  CV: current value
  SV: stale value   (repeatable)
  <L> YYYY-MM-DD HH:MM | text      L in C (current), S (stale), T (still true)
Text lines may continue on following lines starting with '  +' (joined with newline).
"""
import json, sys, glob, collections
STATIC = {"parallel_keys","elaborations","compatible_opposites","multi_valued","same_topic_unrelated","static_restated","long_paragraphs"}
def parse(path):
    out=[]
    for block in open(path).read().split("\n---"):
        lines=[l for l in block.strip("\n").split("\n") if l.strip() and not l.startswith("#")]
        if not lines: continue
        inst={"sv":[],"turns":[]}
        for l in lines:
            if l.startswith("  +"):
                rest=l[3:]; rest=rest[1:] if rest.startswith(" ") else rest
                inst["turns"][-1][2]+="\n"+rest
                continue
            if l.startswith("F:"): inst["family"]=l[2:].strip()
            elif l.startswith("Q:"): inst["query"]=l[2:].strip()
            elif l.startswith("CV:"): inst["cv"]=l[3:].strip()
            elif l.startswith("SV:"): inst["sv"].append(l[3:].strip())
            elif l[:2] in ("C ","S ","T "):
                lab=l[0]; ts,text=l[2:].split("|",1)
                d,h=ts.strip().split()
                inst["turns"].append([lab,f"{d}T{h}:00Z",text.strip()])
            else: raise SystemExit(f"bad line in {path}: {l!r}")
        out.append(inst)
    return out
def main():
    fam_count=collections.Counter(); changes=[]; static=[]
    for p in sorted(glob.glob("/work/heldout2/src/*.txt")):
        for inst in parse(p):
            fam=inst["family"]; n=fam_count[fam]; fam_count[fam]+=1
            turns=[]; C=[];S=[];T=[]
            for i,(lab,ts,text) in enumerate(inst["turns"],1):
                tid=f"t{i}"; turns.append({"id":tid,"ts":ts,"text":text})
                {"C":C,"S":S,"T":T}[lab].append(tid)
            rec={"id":f"{fam}-{n:03d}","family":fam,"turns":turns,"query":inst["query"],
                 "current_turns":C,"stale_turns":S,"still_true_turns":T,
                 "current_value":inst["cv"],"stale_values":inst["sv"]}
            (static if fam in STATIC else changes).append(rec)
    with open("/work/heldout2/changes.jsonl","w") as f:
        for r in changes: f.write(json.dumps(r,ensure_ascii=False)+"\n")
    with open("/work/heldout2/static.jsonl","w") as f:
        for r in static: f.write(json.dumps(r,ensure_ascii=False)+"\n")
    print(dict(fam_count))
main()
