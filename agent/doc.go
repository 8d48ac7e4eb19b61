// Package agent receives the live output of JVMs started with the hprof
// agent's net= option (-agentlib:hprof=net=HOST:PORT,format=b,…) and
// turns every connection into a stream of windowed profiles.
//
// Data flows as everywhere else: bytes → records (convert.Stream, the same
// record decoders as for files) → graph windows → exporters (pprof files,
// OTLP). Every --interval the server asks each JVM for its CPU samples
// (then clears them) and its allocation sites; the answers come back as
// ordinary records on the same socket and become one window.
//
// Security: the hprof agent's protocol has no authentication and no
// encryption. Anyone who can reach the listening address can send data
// that ends up in the exported profiles, and a JVM connecting to a
// hostile receiver can be sent commands. Listen on loopback (the
// default) or a private network only; the server logs a warning when it
// listens anywhere else.
//
// Today's JVMs have no hprof agent; their HPROF is the heap dump. The
// subpackages take and pick up those: attach (HotSpot's attach protocol),
// hsperf (its performance data files), jvm (finding and describing local
// JVMs), capture (heap dumps through attach, and the capture triggers) and
// watch (dumps appearing in a directory). Their windows carry the JVM's
// description (Window.JVMInfo). See docs/live.md.
//
// Start assembles all of it as `hprof2pprof agent` runs it (daemon.go):
// a DaemonConfig in — exporters, spill queue, listener, watched
// directory, capture rules — and a running Daemon out.
package agent
