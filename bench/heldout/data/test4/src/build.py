import json, importlib.util, glob, os
SRC=os.path.dirname(os.path.abspath(__file__))
CH=["keyed_prose","keyed_restated","code_config","paragraph_revision","behavioural"]
ST=["parallel_keys","elaborations","compatible_opposites","multi_valued","same_topic_unrelated","static_restated","long_paragraphs"]
def load(f):
    spec=importlib.util.spec_from_file_location(f,os.path.join(SRC,f+".py")); m=importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m.DATA
def conv(fam,n,inst):
    q,cv,svs,turns=inst
    T=[];c=[];s=[];k=[]
    for j,(ts,lab,txt) in enumerate(turns,1):
        tid=f"t{j}"; d,h=ts.split(" ")
        if len(h)==5: h+=":00"
        T.append({"id":tid,"ts":f"{d}T{h}Z","text":txt})
        {"c":c,"s":s,"k":k}[lab].append(tid)
    return {"id":f"{fam}-{n:03d}","family":fam,"turns":T,"query":q,"current_turns":c,"stale_turns":s,"still_true_turns":k,"current_value":cv,"stale_values":svs}
for out,fams in (("changes.jsonl",CH),("static.jsonl",ST)):
    with open(os.path.join(SRC,"..",out),"w") as f:
        for fam in fams:
            if not os.path.exists(os.path.join(SRC,fam+".py")): continue
            for n,inst in enumerate(load(fam)):
                f.write(json.dumps(conv(fam,n,inst),ensure_ascii=False)+"\n")
