-- The write path: one call records assertions of one or more keys of one namespace,
-- atomically (common.lua is prepended; its KEYS[1..3] come first).
-- KEYS: 1 key index, 2 stats, 3 pending index, then per key: assertions zset, versions zset,
--       data hash, followed by the chunk set of each of its assertions.
-- ARGV: 1 number of keys, then per key: key id, subject, relation, number of assertions, and
--       per assertion: assertion id, event time (integer microseconds), object, turn id,
--       chunk id, policy, rule label, source ('' = unknown), trust weight, confirm TTL (us).
local results = {}

-- latest: the newer event time wins, in valid time (out-of-order arrivals included).
local function latest(aid, t, obj, turn, chunk, src, rule, at, seq, mine)
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
      local turns_, chunks_, srcs_ = provenance(run_of(pf, v.first))
      v.prov, v.srcs = turns_, srcs_
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
      local tail_row = new_row(tail_fact, v.object, na.t, na.chunk, na.turn, nxt, at, na.src)
      tail_row.vt, tail_row.sb = v.vt, v.sb
      tail_row.sb_chunk, tail_row.sb_turn = v.sb_chunk, v.sb_turn
      local tturns, tchunks, tsrcs = provenance(tail)
      tail_row.prov, tail_row.srcs = tturns, tsrcs
      local row = new_row(fact, obj, t, chunk, turn, mine, at, src)
      row.vt, row.sb, row.sb_chunk, row.sb_turn = na.t, tail_fact, na.chunk, na.turn
      late_audit(row, at, tail_row)
      decide(at, 'latest', rule, 'late', tail_row, row, {rule = 'newer event time wins',
        winner_t = na.t, loser_t = t, note = 'inside a run of a newer value'})
      write_row(row, true)
      write_row(tail_row, true)
      local head_turns, head_chunks, head_srcs = provenance(run_of(pf, v.first))
      local head = revise(pf, {vt = t, sb = fact, sb_chunk = chunk, sb_turn = turn,
        prov = head_turns, srcs = head_srcs}, at, 'split', me)
      decide(at, 'latest', rule, 'superseded', row, head, {rule = 'newer event time wins',
        winner_t = t, loser_t = head.vf})
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
      vp.srcs = list(vp.srcs)
      table.insert(vp.srcs, src)
      local raw = cjson.encode(vp)
      redis.call('HSET', DATA, 'r:' .. vp.row, raw, 'c:' .. pf, raw)
      action, fact = 'reinforce', pf
    elseif vn and vn.object == obj then
      -- the next version's value, stated earlier: that version starts earlier
      fact = nf
      me.fact = nf
      redis.call('HSET', DATA, 'f:' .. aid, nf)
      local turns, srcs = {turn}, {src}
      for _, x in ipairs(vn.prov) do table.insert(turns, x) end
      for _, x in ipairs(list(vn.srcs)) do table.insert(srcs, x) end
      redis.call('ZREM', VER, member(seq_of(vn.first), nf))
      redis.call('ZADD', VER, t, member(seq, nf))
      local ext = revise(nf, {vf = t, chunk = chunk, turn = turn, first = mine, prov = turns,
        srcs = srcs}, at, 'extended', me)
      if vp then
        local cut = revise(pf, {vt = t, sb_chunk = chunk, sb_turn = turn}, at, 'cut', me)
        decide(at, 'latest', rule, 'superseded', ext, cut, {rule = 'newer event time wins',
          winner_t = t, loser_t = cut.vf, note = 'a newer value stated earlier'})
      end
      action = 'extend'
    else
      fact = new_fact()
      me.fact = fact
      redis.call('HSET', DATA, 'f:' .. aid, fact)
      local row = new_row(fact, obj, t, chunk, turn, mine, at, src)
      if vn then
        row.vt, row.sb, row.sb_chunk, row.sb_turn = vn.vf, nf, vn.chunk, vn.turn
        late_audit(row, at, vn)
        decide(at, 'latest', rule, 'late', vn, row, {rule = 'newer event time wins',
          winner_t = vn.vf, loser_t = t})
        action = 'late'
      else
        redis.call('HSET', DATA, 'open', fact)
        count('open', 1)
        if vp then action = 'supersede' else action = 'open' end
      end
      write_row(row, true)
      redis.call('ZADD', VER, t, member(seq, fact))
      if vp then
        local was_open = vp.vt == ''
        local reason = 'cut'
        if was_open then reason = 'superseded' end
        local lost = revise(pf, {vt = t, sb = fact, sb_chunk = chunk, sb_turn = turn}, at,
          reason, me)
        local input = {rule = 'newer event time wins', winner_t = t, loser_t = lost.vf}
        if t == lost.vf then input.rule = 'equal event times: the later recorded wins' end
        decide(at, 'latest', rule, 'superseded', row, lost, input)
        if was_open then
          count('open', -1)
          local _, chunks = provenance(run_of(pf, vp.first))
          for _, c in ipairs(chunks) do table.insert(closed, c) end
        end
      end
    end
  end
  return action, fact
end

local function reinforce(fact, aid, turn, src)
  redis.call('HSET', DATA, 'f:' .. aid, fact)
  local row = row_of(fact)
  row.prov, row.srcs = list(row.prov), list(row.srcs)
  table.insert(row.prov, turn)
  table.insert(row.srcs, src)
  local raw = cjson.encode(row)
  redis.call('HSET', DATA, 'r:' .. row.row, raw, 'c:' .. fact, raw)
  return row
end

-- accumulate: one version per distinct value, all current; a new value supersedes nothing.
local function accumulate(aid, t, obj, turn, chunk, src, rule, at, seq, mine)
  local fact = redis.call('HGET', DATA, 'o:' .. obj)
  if fact then
    local row = reinforce(fact, aid, turn, src)
    if tonumber(t) < tonumber(row.vf) then
      -- the value was stated earlier than we knew: it holds from then
      redis.call('ZREM', VER, member(seq_of(row.first), fact))
      redis.call('ZADD', VER, t, member(seq, fact))
      revise(fact, {vf = t, chunk = chunk, turn = turn, first = mine}, at, 'extended',
             {fact = fact, chunk = chunk, turn = turn})
      return 'extend', fact
    end
    return 'reinforce', fact
  end
  local other = open_fact()
  fact = new_fact()
  redis.call('HSET', DATA, 'f:' .. aid, fact, 'o:' .. obj, fact, 'open', fact)
  local row = new_row(fact, obj, t, chunk, turn, mine, at, src)
  write_row(row, true)
  redis.call('ZADD', VER, t, member(seq, fact))
  count('open', 1)
  if other then
    decide(at, 'accumulate', rule, 'coexist', row, row_of(other),
           {rule = 'multi-valued: every value stays current'})
  end
  return 'open', fact
end

-- A value that is not (yet) the key's: a claim row, closed or pending, out of VER.
local function claim(aid, t, obj, turn, chunk, src, at, mine, status, inc, exp)
  local fact = new_fact()
  redis.call('HSET', DATA, 'f:' .. aid, fact)
  local row = new_row(fact, obj, t, chunk, turn, mine, at, src)
  row.st, row.exp = status, exp or ''
  if status ~= 'pending' then
    row.vt = t
    if inc then row.sb, row.sb_chunk, row.sb_turn = inc.fact, inc.chunk, inc.turn end
  end
  write_row(row, true)
  return row
end

local function first_open(aid, t, obj, turn, chunk, src, at, seq, mine)
  local fact = new_fact()
  redis.call('HSET', DATA, 'f:' .. aid, fact, 'open', fact)
  write_row(new_row(fact, obj, t, chunk, turn, mine, at, src), true)
  redis.call('ZADD', VER, t, member(seq, fact))
  count('open', 1)
  return 'open', fact
end

-- Support per value: the sum of its assertions' trust weights and its latest event time.
local function tally(obj, t, w)
  local all = cjson.decode(redis.call('HGET', DATA, 'tally') or '{}')
  local cur = all[obj] or {w = 0, n = 0, t = '0'}
  cur.w, cur.n = cur.w + w, cur.n + 1
  if tonumber(t) > tonumber(cur.t) then cur.t = t end
  all[obj] = cur
  redis.call('HSET', DATA, 'tally', cjson.encode(all))
  return all
end

local function beats(a, oa, b, ob)
  if a.w ~= b.w then return a.w > b.w end
  if tonumber(a.t) ~= tonumber(b.t) then return tonumber(a.t) > tonumber(b.t) end
  return oa > ob
end

-- evidence: the better-supported value wins, whatever its time; ties by time.
local function evidence(aid, t, obj, turn, chunk, src, rule, at, seq, mine, w)
  local all = tally(obj, t, w)
  local inc = open_fact()
  if not inc then return first_open(aid, t, obj, turn, chunk, src, at, seq, mine) end
  local incrow = row_of(inc)
  if incrow.object == obj then return 'reinforce', reinforce(inc, aid, turn, src).fact end
  local cf = redis.call('HGET', DATA, 'cl:' .. obj)
  local row
  if cf then
    row = reinforce(cf, aid, turn, src)
  else
    row = claim(aid, t, obj, turn, chunk, src, at, mine, 'outweighed', incrow)
    redis.call('HSET', DATA, 'cl:' .. obj, row.fact)
  end
  local mine_s, theirs = all[obj], all[incrow.object] or {w = 0, n = 0, t = incrow.vf}
  local input = {rule = 'larger support wins; ties by the latest statement',
                 challenger = {support = mine_s.w, assertions = mine_s.n, latest = mine_s.t},
                 incumbent = {support = theirs.w, assertions = theirs.n, latest = theirs.t},
                 weight = w, source = src}
  if beats(mine_s, obj, theirs, incrow.object) then
    redis.call('HDEL', DATA, 'cl:' .. obj)
    -- the winner holds from its latest supporting statement (or the incumbent's start)
    promote(row.fact, inc, at, 'evidence', rule, 'superseded', input,
            {fact = row.fact, chunk = chunk, turn = turn}, mine_s.t)
    return 'supersede', row.fact
  end
  decide(at, 'evidence', rule, 'outweighed', incrow, row_of(row.fact), input)
  return 'outweighed', row.fact
end

-- confirm: a contradicting value waits, pending, for a second independent source, a
-- confirmation call, or its deadline; the incumbent stays the key's value meanwhile.
local function confirm(aid, t, obj, turn, chunk, src, rule, at, seq, mine, ttl)
  expire_due(at, rule)
  local inc = open_fact()
  if not inc then return first_open(aid, t, obj, turn, chunk, src, at, seq, mine) end
  local incrow = row_of(inc)
  if incrow.object == obj then return 'reinforce', reinforce(inc, aid, turn, src).fact end
  local p = pending_fact()
  local prow = nil
  if p then prow = row_of(p) end
  if prow and prow.object == obj then
    local held = list(prow.srcs)
    if src ~= '' and not contains(held, src) then
      reinforce(p, aid, turn, src)
      promote(p, inc, at, 'confirm', rule, 'promoted',
              {rule = 'confirmed by a second independent source', by = 'source',
               source = src, pending_sources = held},
              {fact = p, chunk = chunk, turn = turn})
      return 'promote', p
    end
    reinforce(p, aid, turn, src)
    return 'reinforce', p
  end
  if tonumber(t) < tonumber(incrow.vf) or (prow and tonumber(t) < tonumber(prow.vf)) then
    -- older than what it contradicts: it cannot become the value, so it is not held
    local winner = prow or incrow
    local row = claim(aid, t, obj, turn, chunk, src, at, mine, 'late', incrow)
    decide(at, 'confirm', rule, 'late', winner, row,
           {rule = 'older than the value it contradicts', winner_t = winner.vf, loser_t = t})
    return 'late', row.fact
  end
  local exp = ''
  if tonumber(ttl) > 0 then exp = fmt(at + tonumber(ttl)) end
  local row = claim(aid, t, obj, turn, chunk, src, at, mine, 'pending', incrow, exp)
  if prow then
    local gone = revise(p, {vt = prow.vf, st = 'displaced', sb = inc, sb_chunk = incrow.chunk,
                            sb_turn = incrow.turn}, at, 'displaced',
                        {fact = row.fact, chunk = chunk, turn = turn})
    close_chunks(p)
    decide(at, 'confirm', rule, 'displaced', row, gone,
           {rule = 'a newer pending value replaces an older one', winner_t = t,
            loser_t = prow.vf})
  end
  redis.call('HSET', DATA, 'pending', row.fact)
  redis.call('HSET', PENDING, kid, row.fact)
  decide(at, 'confirm', rule, 'pending', incrow, row,
         {rule = 'held until a second independent source, a confirmation call or the deadline',
          deadline = exp, source = src})
  return 'pending', row.fact
end

local function write(aid, t, obj, turn, chunk, chunk_set, pol, rule, src, w, ttl)
  redis.call('SADD', chunk_set, kid .. ':' .. aid)
  if redis.call('HEXISTS', DATA, 'a:' .. aid) == 1 then
    count('duplicates', 1)
    table.insert(results, {aid, 'duplicate', fact_of(aid)})
    return
  end
  local at = tick()
  local seq = redis.call('HINCRBY', DATA, 'seq', 1)
  local mine = member(seq, aid)
  redis.call('ZADD', ASN, t, mine)
  redis.call('HSET', DATA, 'sys', fmt(at), 'a:' .. aid, cjson.encode(
    {t = t, seq = seq, object = obj, turn = turn, chunk = chunk, rec = fmt(at), src = src,
     w = w, pol = pol}))
  count('assertions', 1)
  local action, fact
  if pol == 'accumulate' then
    action, fact = accumulate(aid, t, obj, turn, chunk, src, rule, at, seq, mine)
  elseif pol == 'evidence' then
    action, fact = evidence(aid, t, obj, turn, chunk, src, rule, at, seq, mine, w)
  elseif pol == 'confirm' then
    action, fact = confirm(aid, t, obj, turn, chunk, src, rule, at, seq, mine, ttl)
  else
    action, fact = latest(aid, t, obj, turn, chunk, src, rule, at, seq, mine)
  end
  table.insert(results, {aid, action, fact})
end

local k, a = 4, 2
for _ = 1, tonumber(ARGV[1]) do
  kid = ARGV[a]
  ASN, VER, DATA = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  if redis.call('HSETNX', KEYIDX, kid, cjson.encode({ARGV[a + 1], ARGV[a + 2]})) == 1 then
    count('keys', 1)
  end
  local n = tonumber(ARGV[a + 3])
  k, a = k + 3, a + 4
  for _ = 1, n do
    write(ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], KEYS[k], ARGV[a + 5],
          ARGV[a + 6], ARGV[a + 7], tonumber(ARGV[a + 8]), ARGV[a + 9])
    k, a = k + 1, a + 10
  end
end
return reply({results = results, closed = closed})
