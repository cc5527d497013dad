local T, previous = ARGV[1], ARGV[2] == 'previous'
local full = previous or ARGV[2] == 'full'
local limit, score = math.huge, '+inf'
if T ~= 'inf' then limit, score = tonumber(T), T end
local names, out = {}, {}
for i = 3, #ARGV, 3 do
  local k, kid, aid = tonumber(ARGV[i]), ARGV[i + 1], ARGV[i + 2]
  local VER, DATA = KEYS[2 * k], KEYS[2 * k + 1]
  local entry = {aid = aid, kid = kid}
  local fact = redis.call('HGET', DATA, 'f:' .. aid)
  if fact then
    local raw = redis.call('HGET', DATA, 'c:' .. fact)
    entry.row = raw
    if full then
      if not names[kid] then names[kid] = redis.call('HGET', KEYS[1], kid) or '' end
      entry.key = names[kid]
      local row = cjson.decode(raw)
      if row.st == 'pending' then
        -- a held value: the incumbent it contradicts (reads keep that one)
        local inc = redis.call('HGET', DATA, 'open')
        if inc and inc ~= '' then entry.next = redis.call('HGET', DATA, 'c:' .. inc) end
      elseif row.vt ~= '' and tonumber(row.vt) <= limit then
        entry.next = redis.call('HGET', DATA, 'c:' .. row.sb)
        local at = redis.call('ZREVRANGEBYSCORE', VER, score, '-inf', 'LIMIT', 0, 1)[1]
        if at then entry.valid = redis.call('HGET', DATA, 'c:' .. string.sub(at, 14)) end
      end
      if previous and (row.st or '') == '' then
        -- the version this one replaced: the one before it in valid time, closed by it (a
        -- versions member is its first assertion's 12-digit sequence, ':', the fact id)
        local rank = redis.call('ZRANK', VER, string.sub(row.first, 1, 13) .. fact)
        if rank and rank > 0 then
          local before = redis.call('ZRANGE', VER, rank - 1, rank - 1)[1]
          local raw_prev = redis.call('HGET', DATA, 'c:' .. string.sub(before, 14))
          if raw_prev and cjson.decode(raw_prev).sb == fact then entry.prev = raw_prev end
        end
      end
    end
  end
  table.insert(out, entry)
end
return cjson.encode(out)
