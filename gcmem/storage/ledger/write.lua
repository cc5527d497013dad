local KEYIDX, STATS = KEYS[1], KEYS[2]
-- the key being written; the helpers below read these
local ASN, VER, DATA, kid

local function fmt(n) return string.format('%d', n) end
local function member(seq, id) return string.format('%012d', seq) .. ':' .. id end
local function id_of(m) return string.sub(m, 14) end
local function seq_of(m) return tonumber(string.sub(m, 1, 12)) end

local function clock()
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('HGET', DATA, 'sys') or '0')
  if now <= last then now = last + 1 end
  redis.call('HSET', DATA, 'sys', fmt(now))
  return now
end

local function assertion(aid) return cjson.decode(redis.call('HGET', DATA, 'a:' .. aid)) end
local function fact_of(aid) return redis.call('HGET', DATA, 'f:' .. aid) end
local function row_of(fact) return cjson.decode(redis.call('HGET', DATA, 'c:' .. fact)) end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local function write_row(row, current)
  local n = redis.call('HINCRBY', DATA, 'rows', 1)
  row.row = n
  local raw = cjson.encode(row)
  redis.call('HSET', DATA, 'r:' .. n, raw)
  if current then redis.call('HSET', DATA, 'c:' .. row.fact, raw) end
  redis.call('HINCRBY', STATS, 'rows', 1)
  if row.kind == 'audit' then redis.call('HINCRBY', STATS, 'audit_rows', 1) end
end

local function retire(row, at, reason, by)
  row.kind = 'audit'
  row.ret = fmt(at)
  row.reason = reason
  row.by, row.by_chunk, row.by_turn = by.fact, by.chunk, by.turn
  redis.call('HSET', DATA, 'r:' .. row.row, cjson.encode(row))
  redis.call('HINCRBY', STATS, 'audit_rows', 1)
end

-- A version changes: its current row retires to the audit trail, a new current row follows.
local function revise(fact, changes, at, reason, by)
  local old = row_of(fact)
  local new = copy(old)
  retire(old, at, reason, by)
  for k, v in pairs(changes) do new[k] = v end
  new.kind, new.rec, new.ret, new.reason = 'current', fmt(at), '', ''
  new.by, new.by_chunk, new.by_turn = '', '', ''
  write_row(new, true)
end

-- The claim of an assertion that lost on arrival, as it was made (open-ended), in the audit
-- trail; its system-time interval is empty, so as-of views never show it.
local function late_audit(row, at, winner)
  local claim = copy(row)
  claim.vt, claim.sb, claim.sb_chunk, claim.sb_turn = '', '', '', ''
  claim.kind, claim.rec, claim.ret, claim.reason = 'audit', fmt(at), fmt(at), 'late'
  claim.by, claim.by_chunk, claim.by_turn = winner.fact, winner.chunk, winner.turn
  write_row(claim, false)
end

-- Assertion ids of a version's run, in order, from the given member on.
local function run_of(fact, first)
  local out = {}
  local rank = redis.call('ZRANK', ASN, first)
  if not rank then return out end
  while true do
    local batch = redis.call('ZRANGE', ASN, rank, rank + 63)
    if #batch == 0 then return out end
    for _, m in ipairs(batch) do
      local aid = id_of(m)
      if fact_of(aid) ~= fact then return out end
      table.insert(out, aid)
    end
    rank = rank + #batch
  end
end

local function provenance(aids)
  local turns, chunks = {}, {}
  for _, aid in ipairs(aids) do
    local a = assertion(aid)
    table.insert(turns, a.turn)
    table.insert(chunks, a.chunk)
  end
  return turns, chunks
end

local function new_fact()
  local n = redis.call('HINCRBY', DATA, 'facts', 1)
  redis.call('HINCRBY', STATS, 'versions', 1)
  return kid .. '.' .. n
end

local function new_row(fact, obj, vf, chunk, turn, first, at)
  return {fact = fact, kind = 'current', object = obj, vf = vf, vt = '', rec = fmt(at),
          ret = '', sb = '', sb_chunk = '', sb_turn = '', chunk = chunk, turn = turn,
          first = first, prov = {turn}, reason = '', by = '', by_chunk = '', by_turn = ''}
end

local results, closed = {}, {}

local function write(aid, t, obj, turn, chunk, chunk_set)
  redis.call('SADD', chunk_set, kid .. ':' .. aid)
  if redis.call('HEXISTS', DATA, 'a:' .. aid) == 1 then
    redis.call('HINCRBY', STATS, 'duplicates', 1)
    table.insert(results, {aid, 'duplicate', fact_of(aid)})
  else
    local at = clock()
    local seq = redis.call('HINCRBY', DATA, 'seq', 1)
    local mine = member(seq, aid)
    redis.call('ZADD', ASN, t, mine)
    redis.call('HSET', DATA, 'a:' .. aid, cjson.encode(
      {t = t, seq = seq, object = obj, turn = turn, chunk = chunk, rec = fmt(at)}))
    redis.call('HINCRBY', STATS, 'assertions', 1)
    local me = {fact = '', chunk = chunk, turn = turn}
    local rank = redis.call('ZRANK', ASN, mine)
    local prev, nxt = nil, redis.call('ZRANGE', ASN, rank + 1, rank + 1)[1]
    if rank > 0 then prev = redis.call('ZRANGE', ASN, rank - 1, rank - 1)[1] end
    local pf, nf = nil, nil
    if prev then pf = fact_of(id_of(prev)) end
    if nxt then nf = fact_of(id_of(nxt)) end
    local action, fact

    if pf and nf and pf == nf then
      local v = row_of(pf)
      if v.object == obj then
        -- inside a run of the same value
        redis.call('HSET', DATA, 'f:' .. aid, pf)
        v.prov = provenance(run_of(pf, v.first))
        local raw = cjson.encode(v)
        redis.call('HSET', DATA, 'r:' .. v.row, raw, 'c:' .. pf, raw)
        action, fact = 'reinforce', pf
      else
        -- a different value inside a run: the run splits around it
        local was_open = v.vt == ''
        fact = new_fact()
        me.fact = fact
        local tail_fact = new_fact()
        local na = assertion(id_of(nxt))
        local tail = run_of(pf, nxt)
        for _, x in ipairs(tail) do redis.call('HSET', DATA, 'f:' .. x, tail_fact) end
        redis.call('HSET', DATA, 'f:' .. aid, fact)
        local tail_row = new_row(tail_fact, v.object, na.t, na.chunk, na.turn, nxt, at)
        tail_row.vt, tail_row.sb = v.vt, v.sb
        tail_row.sb_chunk, tail_row.sb_turn = v.sb_chunk, v.sb_turn
        tail_row.prov = provenance(tail)
        local row = new_row(fact, obj, t, chunk, turn, mine, at)
        row.vt, row.sb, row.sb_chunk, row.sb_turn = na.t, tail_fact, na.chunk, na.turn
        late_audit(row, at, tail_row)
        write_row(row, true)
        write_row(tail_row, true)
        local head_turns, head_chunks = provenance(run_of(pf, v.first))
        revise(pf, {vt = t, sb = fact, sb_chunk = chunk, sb_turn = turn, prov = head_turns},
               at, 'split', me)
        redis.call('ZADD', VER, t, member(seq, fact))
        redis.call('ZADD', VER, na.t, member(na.seq, tail_fact))
        if was_open then
          redis.call('HSET', DATA, 'open', tail_fact)
          for _, c in ipairs(head_chunks) do table.insert(closed, c) end
        end
        action = 'split'
      end
    else
      local vp, vn = nil, nil
      if pf then vp = row_of(pf) end
      if nf then vn = row_of(nf) end
      if vp and vp.object == obj then
        -- the newest assertion of the previous run, same value
        redis.call('HSET', DATA, 'f:' .. aid, pf)
        table.insert(vp.prov, turn)
        local raw = cjson.encode(vp)
        redis.call('HSET', DATA, 'r:' .. vp.row, raw, 'c:' .. pf, raw)
        action, fact = 'reinforce', pf
      elseif vn and vn.object == obj then
        -- the next version's value, stated earlier: that version starts earlier
        fact = nf
        me.fact = nf
        redis.call('HSET', DATA, 'f:' .. aid, nf)
        local turns = {turn}
        for _, x in ipairs(vn.prov) do table.insert(turns, x) end
        redis.call('ZREM', VER, member(seq_of(vn.first), nf))
        redis.call('ZADD', VER, t, member(seq, nf))
        revise(nf, {vf = t, chunk = chunk, turn = turn, first = mine, prov = turns},
               at, 'extended', me)
        if vp then
          revise(pf, {vt = t, sb_chunk = chunk, sb_turn = turn}, at, 'cut', me)
        end
        action = 'extend'
      else
        fact = new_fact()
        me.fact = fact
        redis.call('HSET', DATA, 'f:' .. aid, fact)
        local row = new_row(fact, obj, t, chunk, turn, mine, at)
        if vn then
          row.vt, row.sb, row.sb_chunk, row.sb_turn = vn.vf, nf, vn.chunk, vn.turn
          late_audit(row, at, vn)
          action = 'late'
        else
          redis.call('HSET', DATA, 'open', fact)
          redis.call('HINCRBY', STATS, 'open', 1)
          if vp then action = 'supersede' else action = 'open' end
        end
        write_row(row, true)
        redis.call('ZADD', VER, t, member(seq, fact))
        if vp then
          local was_open = vp.vt == ''
          local reason = 'cut'
          if was_open then reason = 'superseded' end
          revise(pf, {vt = t, sb = fact, sb_chunk = chunk, sb_turn = turn}, at, reason, me)
          if was_open then
            redis.call('HINCRBY', STATS, 'open', -1)
            local _, chunks = provenance(run_of(pf, vp.first))
            for _, c in ipairs(chunks) do table.insert(closed, c) end
          end
        end
      end
    end
    table.insert(results, {aid, action, fact})
  end
end

local k, a = 3, 2
for _ = 1, tonumber(ARGV[1]) do
  kid = ARGV[a]
  ASN, VER, DATA = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  if redis.call('HSETNX', KEYIDX, kid, cjson.encode({ARGV[a + 1], ARGV[a + 2]})) == 1 then
    redis.call('HINCRBY', STATS, 'keys', 1)
  end
  local n = tonumber(ARGV[a + 3])
  k, a = k + 3, a + 4
  for _ = 1, n do
    write(ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], KEYS[k])
    k, a = k + 1, a + 5
  end
end
return cjson.encode({results = results, closed = closed})
