// Package convert decodes Java HPROF inputs — binary heap dumps and
// hprof agent files, and the agent's text reports — into the graph of
// package convert/graph, which every emitter reads. Data flows one way:
// bytes (convert/source) → records (convert/hprof, convert/text) → graph
// (this package) → emitters (pprofout, otlp, parquet, folded).
//
// Where things happen, one file each:
//
//   - a record is decoded: convert/hprof/records.go (top-level records),
//     text report lines in convert/text/records.go;
//   - a heap sub-record is split into fields: convert/hprof/sub.go (an
//     instance's field bytes into values through its class layout,
//     Layout.Value in convert/internal/layout/layout.go);
//   - records are walked: hprof.Walk (convert/hprof/walk.go) for every
//     top-level record loop, with its one error policy (the live Stream
//     follows it record by record); hprof.HeapReader for every heap
//     sub-record loop, over the input (Reader.Heap) or a mapped body
//     (NewHeapBytes) alike;
//   - a heap dump is read again: hprof.File (convert/hprof/file.go), the
//     one handle per input, which notes each dump's records as the first
//     pass reads them and is the only way back into the input for the
//     passes after it (thread names, the retained graph, the heap rows),
//     with one damage policy;
//   - a frame is named: convert/internal/frames/frames.go (trace serial →
//     stack of Java-named frames, R8 retracing);
//   - a class is named: convert/javaname/javaname.go; its run-independent
//     name (a hidden or lambda class without its address, Normalize) is
//     given to every frame and class label of a decoded graph by
//     graph.Graph.NormalizeClasses (convert/graph/names.go), unless
//     Options.RawNames;
//   - a class layout is made: convert/internal/layout/layout.go (one
//     table per dump: field offsets, reference slots, named fields,
//     flattened over the super chain; java.lang.String values decoded in
//     strings.go beside it);
//   - an object is sized: convert/heapsize/heapsize.go (the size model,
//     decided once per dump by heapsize.Decide);
//   - a view is built: cpu.go, alloc.go, heap.go, threads.go,
//     retained.go and paths.go (with the suspects report; GC roots named
//     in rootnames.go) here, one plain function each (buildCPU, …) over what
//     the first pass read and the graph, for a file and for each window
//     of a live Stream alike (text reports: convert/text/build.go);
//   - a pprof sample is made: pprofout/pprofout.go;
//   - a batch of inputs is run: internal/batch/batch.go.
//
// The rest of the pipeline:
//
//   - convert/source: opening an input — sniffing, gzip (the JDK's
//     multi-member -gz inflated in parallel), bzip2, mapping, the memory
//     watch;
//   - convert/hprof: the binary format — header, records, heap
//     sub-records, tags, the symbol tables (hprof.Symbols), record bodies
//     as io.ReaderAt windows for random access (hprof.Segment), the input
//     as one handle for every pass (hprof.File);
//   - convert/internal/heapdump: what one heap dump's objects add up to
//     (per-class counts, the evidence of its size model, the parallel
//     span scan, thread names recovered from String objects);
//   - convert/internal/describe: the writer guess and notes of `info`;
//   - convert/graph: the model, its invariants (Validate), the canonical
//     sample order;
//   - convert/internal/idnote: the object IDs the first pass notes for
//     the retained view;
//   - convert/internal/heaprows: the heap tables' rows (Decoded.Rows);
//   - convert/retained: the object graph of a heap dump (built from
//     its records) and the retained view; its algorithms on plain
//     slices (dominators, reachability, DFS numbering, class paths) in
//     convert/retained/internal/domtree, its memory (arenas, mapped
//     files, prefetch) in convert/retained/internal/mem;
//   - internal/sysmem: the memory this process may use (cgroup limit,
//     /proc/meminfo).
//
// In this package: input.go picks the decoder for an input and keeps it
// open (Decoded); binary.go reads a binary input's records into what the
// views are built from (binData: symbols, CPU samples, allocation sites,
// the chosen heap dump) and builds the views wanted; heapdump.go sends a
// dump's heap records to the stream or notes them as spans, which
// parallel.go scans on every core; cpu.go, alloc.go, heap.go, threads.go,
// retained.go and paths.go build one view each; rows.go reads the heap rows after
// decoding (Decoded.Rows); stream.go cuts a live agent connection into
// windows (Stream), each built by the same view functions; text.go hands
// text reports to convert/text. Decoding never calls an emitter: a
// caller that wants the heap tables asks Decoded.Rows for them.
package convert
