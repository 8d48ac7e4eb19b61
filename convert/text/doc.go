// Package text decodes the hprof agent's text reports (java.hprof.txt,
// the default output, and the net= stream without format=b) and its
// cpu=old output into the same graph as the binary decoder.
//
// A report is a header line `JAVA PROFILE 1.0.1, created <ctime>`, a
// prelude copied from the agent's jvm.hprof.txt (CRLF or LF lines), a line
// `--------`, then records:
//
//	THREAD START (obj=…, id = N, name="…", group="…")   THREAD END (id = N)
//	TRACE N: [(thread=N)]  followed by tab-indented frames or `<empty>`
//	WAIT: / WAITED: / SLEEP: / EXIT: MONITOR lines (monitor=y)
//	CPU SAMPLES BEGIN … END      → view cpu
//	CPU TIME (ms) BEGIN … END    → view cputime
//	SITES BEGIN … END            → view alloc
//	HEAP DUMP BEGIN … END        → view heap
//	MONITOR TIME BEGIN … END     → view monitor
//	MONITOR DUMP BEGIN … END     → view threads
//
// A file may hold several dumps (one per SIGQUIT, plus the exit dump).
// CPU SAMPLES, CPU TIME and MONITOR TIME are reset after each dump, so the
// default sums them; SITES and HEAP DUMP are cumulative, so the default
// takes the last complete one; Options.Dump picks a single dump.
//
// cpu=old output has no header: its first line is `count callee caller
// time`, followed by one row per caller→callee pair (view cpuold).
package text
