-- Shared by write.lua and confirm.lua (the ledger prepends it to each; one script per call).
-- KEYS[1] key index hash, KEYS[2] stats hash, KEYS[3] pending index hash (key id -> fact).
local KEYIDX, STATS, PENDING = KEYS[1], KEYS[2], KEYS[3]
-- the key being written; the helpers below read these
local ASN, VER, DATA, kid

local function fmt(n) return string.format('%d', n) end
local function member(seq, id) return string.format('%012d', seq) .. ':' .. id end
local function id_of(m) return string.sub(m, 14) end
local function seq_of(m) return tonumber(string.sub(m, 1, 12)) end

-- The key's next system time (strictly increasing); the caller writes it back as 'sys'.
local function tick()
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('HGET', DATA, 'sys') or '0')
  if now <= last then now = last + 1 end
  return now
end

local function clock()
  local now = tick()
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

-- cjson encodes an empty table as {}; lists stay lists on the Python side either way.
local function list(t)
  if t == nil then return {} end
  return t
end

-- The namespace's counters change once per call, by the call's total (each field touched
-- is written, a zero total included): a command per assertion costs in an embedded server.
local counted = {}
local function count(field, n) counted[field] = (counted[field] or 0) + n end
local function reply(out)
  for field, n in pairs(counted) do redis.call('HINCRBY', STATS, field, n) end
  counted = {}
  return cjson.encode(out)
end

local function write_row(row, current)
  local n = redis.call('HINCRBY', DATA, 'rows', 1)
  row.row = n
  local raw = cjson.encode(row)
  if current then
    redis.call('HSET', DATA, 'r:' .. n, raw, 'c:' .. row.fact, raw)
  else
    redis.call('HSET', DATA, 'r:' .. n, raw)
  end
  count('rows', 1)
  if row.kind == 'audit' then count('audit_rows', 1) end
end

local function retire(row, at, reason, by)
  row.kind = 'audit'
  row.ret = fmt(at)
  row.reason = reason
  row.by, row.by_chunk, row.by_turn = by.fact, by.chunk, by.turn
  redis.call('HSET', DATA, 'r:' .. row.row, cjson.encode(row))
  count('audit_rows', 1)
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
  return new
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

-- Every assertion of a fact, wherever it sits in time (claims are not runs).
local function members_of(fact)
  local out = {}
  for _, m in ipairs(redis.call('ZRANGE', ASN, 0, -1)) do
    local aid = id_of(m)
    if fact_of(aid) == fact then table.insert(out, aid) end
  end
  return out
end

local function provenance(aids)
  local turns, chunks, srcs = {}, {}, {}
  for _, aid in ipairs(aids) do
    local a = assertion(aid)
    table.insert(turns, a.turn)
    table.insert(chunks, a.chunk)
    table.insert(srcs, a.src or '')
  end
  return turns, chunks, srcs
end

local function new_fact()
  local n = redis.call('HINCRBY', DATA, 'facts', 1)
  count('versions', 1)
  return kid .. '.' .. n
end

local function new_row(fact, obj, vf, chunk, turn, first, at, src)
  return {fact = fact, kind = 'current', object = obj, vf = vf, vt = '', rec = fmt(at),
          ret = '', sb = '', sb_chunk = '', sb_turn = '', chunk = chunk, turn = turn,
          first = first, prov = {turn}, srcs = {src or ''}, reason = '', by = '',
          by_chunk = '', by_turn = '', st = '', exp = ''}
end

-- One side of a resolution as the audit names it: the value and its provenance.
local function side(row)
  if not row then return nil end
  return {fact = row.fact, object = row.object, valid_from = row.vf, chunk = row.chunk,
          turn = row.turn, turns = list(row.prov), sources = list(row.srcs), status = row.st or ''}
end

-- Every resolution leaves a decision row: policy, rule, both sides, what decided it.
local function decide(at, policy, rule, outcome, winner, loser, input)
  local n = redis.call('HINCRBY', DATA, 'decisions', 1)
  count('decisions', 1)
  redis.call('HSET', DATA, 'd:' .. n, cjson.encode(
    {n = n, at = fmt(at), policy = policy, rule = rule, outcome = outcome,
     winner = side(winner) or false, loser = side(loser) or false, input = input}))
end

local function pending_fact()
  local f = redis.call('HGET', DATA, 'pending')
  if f and f ~= '' then return f end
  return nil
end

local function clear_pending()
  redis.call('HSET', DATA, 'pending', '')
  redis.call('HDEL', PENDING, kid)
end

local function open_fact()
  local f = redis.call('HGET', DATA, 'open')
  if f and f ~= '' then return f end
  return nil
end

local function contains(t, x)
  for _, v in ipairs(list(t)) do if v == x then return true end end
  return false
end

local closed = {}

local function close_chunks(fact)
  local _, chunks = provenance(members_of(fact))
  for _, c in ipairs(chunks) do table.insert(closed, c) end
end

-- A pending value past its deadline is retired (lazily, by the next call on its key).
local function expire_due(at, rule)
  local p = pending_fact()
  if not p then return nil end
  local row = row_of(p)
  if row.exp == '' or tonumber(row.exp) > at then return nil end
  local inc = open_fact()
  local incrow = nil
  if inc then incrow = row_of(inc) end
  local by = {fact = inc or '', chunk = '', turn = ''}
  if incrow then by.chunk, by.turn = incrow.chunk, incrow.turn end
  local new = revise(p, {vt = row.vf, st = 'expired', sb = inc or '',
                         sb_chunk = by.chunk, sb_turn = by.turn}, at, 'expired', by)
  clear_pending()
  close_chunks(p)
  decide(at, 'confirm', rule or row.rule or '', 'expired', incrow, new,
         {deadline = row.exp, now = fmt(at)})
  return new
end

-- A held value becomes the key's value: the incumbent closes where the winner starts.
local function promote(fact, inc, at, policy, rule, outcome, input, by, start)
  local row = row_of(fact)
  local incrow = row_of(inc)
  local vf = start or row.vf
  if tonumber(incrow.vf) > tonumber(vf) then vf = incrow.vf end
  local was_pending = row.st == 'pending'
  local won = revise(fact, {vf = vf, vt = '', st = '', exp = '', sb = '', sb_chunk = '',
                            sb_turn = ''}, at, 'promoted', by)
  local lost = revise(inc, {vt = vf, sb = fact, sb_chunk = row.chunk, sb_turn = row.turn},
                      at, 'superseded', {fact = fact, chunk = row.chunk, turn = row.turn})
  redis.call('ZADD', VER, vf, member(seq_of(row.first), fact))
  redis.call('HSET', DATA, 'open', fact)
  if was_pending then clear_pending() end
  close_chunks(inc)
  decide(at, policy, rule, outcome, won, lost, input)
end
