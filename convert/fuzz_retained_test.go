package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
)

// retainedSeed is a small heap dump with a graph: a class with one
// reference field, a chain of its instances and a cycle, an object
// array holding them, a primitive array, roots, in two segments.
func retainedSeed() []byte {
	cls := be(uint8(0x20), uint64(100), uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0),
		uint32(8), uint16(0), uint16(0), uint16(1), uint64(2), uint8(2)) // one field "run" (name 2), type object
	inst := func(id, next uint64) []byte { return be(uint8(0x21), id, uint32(0), uint64(100), uint32(8), next) }
	arr := be(uint8(0x22), uint64(50), uint32(0), uint32(3), uint64(100), uint64(8), uint64(16), uint64(24))
	prim := be(uint8(0x23), uint64(60), uint32(0), uint32(4), uint8(10), uint32(1), uint32(2), uint32(3), uint32(4))
	root := be(uint8(0x01), uint64(50), uint64(0))
	return base().
		record(0x1C, cat(cls, inst(8, 16), inst(16, 24), inst(24, 8), root)).
		record(0x1C, cat(arr, prim, inst(32, 60), be(uint8(0xFF), uint64(32)))).
		record(0x2C, nil).Bytes()
}

// cutClaimSeed is a dump cut inside a HEAP DUMP SEGMENT (of a length the
// parallel first pass maps) whose object array claims 8 M elements that
// the file does not hold: no room may be reserved for them.
func cutClaimSeed() []byte {
	f := base()
	f.WriteByte(0x1C)
	f.Write(be(uint32(0), uint32(64<<20-1)))
	f.Write(be(uint8(0x20), uint64(100), uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint32(0), uint16(0), uint16(0), uint16(0)))
	f.Write(be(uint8(0x01), uint64(8), uint64(0)))
	f.Write(be(uint8(0x21), uint64(8), uint32(0), uint64(100), uint32(0)))
	f.Write(be(uint8(0x22), uint64(50), uint32(0), uint32(8<<20), uint64(100), uint64(8)))
	return f.Bytes()
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// FuzzRetained feeds arbitrary files to the retained view, which maps a
// plain file's heap records and builds the object graph from them: no
// panic, no hang, and no graph sized by what a few bytes claim.
func FuzzRetained(f *testing.F) {
	f.Add(retainedSeed())
	f.Add(cutClaimSeed())
	for _, b := range fileSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.hprof")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		probe := &testhooks.Retained{}
		_, _ = ConvertFile(testhooks.With(ctx, testhooks.Hooks{Retained: probe}), path, Options{Views: []string{graph.ViewRetained}})
		if ctx.Err() != nil {
			t.Fatalf("the retained view of %d bytes took longer than 10s", len(data))
		}
		// Objects and references each take bytes of the file: the
		// graph's estimate (20 B per object, 12 per reference bound) stays
		// within a small multiple of it.
		if r := probe.Result; r != nil && r.Spill.GraphBytes > 64*int64(len(data))+1<<20 {
			t.Fatalf("%d input bytes: a graph of %d bytes reserved", len(data), r.Spill.GraphBytes)
		}
	})
}
