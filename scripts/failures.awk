# Reads bun test's report and prints each failure again: a failed test's error
# (the lines bun printed since the test before it) and every "Unhandled error
# between tests" block. CI shows only the end of a long log; this puts the cause
# of a failure there, next to the summary, instead of thousands of lines up.
# At most 40 lines a failure and 160 in all.
function flush_block(lines, n,   i, from) {
  from = n > 40 ? n - 39 : 1
  if (from > 1) out[++m] = "  … (" (from - 1) " lines above)"
  for (i = from; i <= n; i++) out[++m] = lines[i]
  out[++m] = ""
}
/^[0-9]+ tests? failed:$/ { done = 1 }
done { next }
/^# Unhandled error between tests$/ { inerr = 1; en = 0 }
inerr {
  err[++en] = $0
  if ($0 ~ /^-+$/ && ++dashes == 2) { flush_block(err, en); inerr = 0; dashes = 0 }
  next
}
/^\(fail\) / { buf[++bn] = $0; flush_block(buf, bn); bn = 0; next }
/^\((pass|skip|todo)\) / || /^[^ ].*\.test\.[jt]sx?:$/ { bn = 0; next }
{ buf[++bn] = $0 }
END {
  if (m == 0) exit
  print ""
  print "── the failures again, from the report above ──"
  from = m > 160 ? m - 159 : 1
  for (i = from; i <= m; i++) print out[i]
}
