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
// An excerpt (a table pasted into a ticket, the manuals' examples) may
// lack the header and the prelude, hold `...` lines where rows or records
// were left out, be indented, and stop a table without END; it is
// recognised by its record lines (see Sniff) and Source.Notes say what it
// lacks. Both the JVMPI-era agent's syntax (JDK 1.2–1.4: slash names,
// `char []`, element-type ARR, trace 0) and the JVMTI agent's are read
// into the same Java names. Where a table's header total exceeds its rows
// (the agent's cutoff, an excerpt), the view carries the difference on
// one frame named "(rows not shown: cutoff or excerpt)". README.md has
// the details.
//
// cpu=old output has no header: its first line is `count callee caller
// time`, followed by one row per caller→callee pair (view cpuold).
package text
