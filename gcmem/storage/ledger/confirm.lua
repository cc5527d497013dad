-- A decision on a key's pending value from outside the write path (common.lua prepended).
-- KEYS: 1 key index, 2 stats, 3 pending index, 4 assertions zset, 5 versions zset, 6 data.
-- ARGV: 1 key id, 2 'confirm' | 'reject' | 'expire', 3 the pending object expected ('' = any),
--       4 who decides (for the audit), 5 rule label.
kid = ARGV[1]
ASN, VER, DATA = KEYS[4], KEYS[5], KEYS[6]
local mode, expected, who, rule = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local at = clock()
local out = {result = 'none', fact = '', closed = closed}
local gone = expire_due(at, rule)
if gone then
  out.result, out.fact, out.object = 'expired', gone.fact, gone.object
  return reply(out)
end
local p = pending_fact()
if not p then return reply(out) end
local prow = row_of(p)
if expected ~= '' and prow.object ~= expected then
  -- the caller confirmed a value that is no longer the one held (a race): change nothing
  out.result, out.fact, out.object = 'mismatch', p, prow.object
  return reply(out)
end
out.fact, out.object = p, prow.object
if mode == 'confirm' then
  local inc = open_fact()
  promote(p, inc, at, 'confirm', rule, 'promoted',
          {rule = 'confirmed by a call', by = 'call', who = who},
          {fact = p, chunk = '', turn = ''})
  out.result = 'promoted'
elseif mode == 'reject' then
  local inc = open_fact()
  local incrow = row_of(inc)
  local gone = revise(p, {vt = prow.vf, st = 'rejected', sb = inc, sb_chunk = incrow.chunk,
                          sb_turn = incrow.turn}, at, 'rejected',
                      {fact = inc, chunk = incrow.chunk, turn = incrow.turn})
  clear_pending()
  close_chunks(p)
  decide(at, 'confirm', rule, 'rejected', incrow, gone,
         {rule = 'rejected by a call', by = 'call', who = who})
  out.result = 'rejected'
end
out.closed = closed
return reply(out)
