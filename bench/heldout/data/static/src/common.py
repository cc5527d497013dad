INSTANCES = {}

def I(family, q, turns, cur, cv, stale=(), sv=()):
    INSTANCES.setdefault(family, []).append(
        dict(q=q, turns=list(turns), cur=list(cur), cv=cv, stale=list(stale), sv=list(sv)))
