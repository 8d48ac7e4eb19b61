package convert

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// benchConvert converts path b.N times, reporting MB/s of uncompressed
// input.
func benchConvert(b *testing.B, path string, opts Options) {
	b.Helper()
	g, err := ConvertFile(context.Background(), path, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(g.Source.Bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ConvertFile(context.Background(), path, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHeapView(b *testing.B) {
	benchConvert(b, "../testdata/jdk17-zoo-live.hprof", Options{Views: []string{graph.ViewHeap}})
}

func BenchmarkHeapViewGzip(b *testing.B) {
	benchConvert(b, "../testdata/jdk25-zoo-live.hprof.gz", Options{Views: []string{graph.ViewHeap}})
}

func BenchmarkAllViews(b *testing.B) {
	benchConvert(b, "../testdata/jdk17-zoo-live.hprof", Options{})
}

// BenchmarkRecords measures the record reader alone: every record and
// heap sub-record header decoded, bodies skipped.
func BenchmarkRecords(b *testing.B) {
	const path = "../testdata/jdk17-zoo-live.hprof"
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := hprof.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Tag == hprof.TagHeapDumpSegment || rec.Tag == hprof.TagHeapDump {
				h := r.Heap()
				for {
					if _, err := h.Next(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
		}
		f.Close()
	}
}

// BenchmarkBigDump runs the heap view over the dump HPROF_BENCH_DUMP
// names (make one with ../shared/bench/make-bench-dumps.sh).
func BenchmarkBigDump(b *testing.B) {
	path := os.Getenv("HPROF_BENCH_DUMP")
	if path == "" {
		b.Skip("set HPROF_BENCH_DUMP to a large heap dump")
	}
	benchConvert(b, path, Options{Views: []string{graph.ViewHeap}})
}
