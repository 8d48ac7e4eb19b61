package parquet

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/compress"
)

func TestRoomyAllocator(t *testing.T) {
	var a roomyAllocator
	b := a.Allocate(100)
	if len(b) != 100 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
		t.Fatalf("Allocate(100): %d bytes at %p, want 100 at a 64-byte boundary", len(b), unsafe.SliceData(b))
	}
	for i := range b {
		b[i] = 0xFF
	}
	g := a.Reallocate(200, b)
	if len(g) != 200 || cap(g) < 200 || uintptr(unsafe.Pointer(unsafe.SliceData(g)))%64 != 0 {
		t.Fatalf("Reallocate(200): len %d cap %d", len(g), cap(g))
	}
	for i, v := range g {
		if want := byte(0xFF); i >= 100 {
			want = 0
			if v != want {
				t.Fatalf("byte %d = %x after growth, want 0", i, v)
			}
		} else if v != want {
			t.Fatalf("byte %d = %x after growth, want the old %x", i, v, want)
		}
	}
	if cap(g) < 2*cap(b) {
		t.Errorf("grown to capacity %d, want at least twice %d: room for the next requests", cap(g), cap(b))
	}
	// Shrunk and grown again within its capacity: the same memory, and
	// what it exposes again reads zero.
	s := a.Reallocate(150, g)
	for i := range s {
		s[i] = 1
	}
	s = a.Reallocate(10, s)
	h := a.Reallocate(160, s)
	if unsafe.SliceData(h) != unsafe.SliceData(g) {
		t.Error("a reallocation within capacity moved the buffer")
	}
	for i := 10; i < 160; i++ {
		if h[i] != 0 {
			t.Fatalf("byte %d = %x exposed again, want 0", i, h[i])
		}
	}
}

// TestNullableColumnGarbage writes a nullable column whose nulls come and
// go (a null, then eight values: a new literal run of definition levels
// every nine rows) with Arrow's Go allocator as the default, then with
// ours: the garbage the first makes grows with the square of the rows of
// a page (Arrow v15's level buffer reallocated whole at every run, see
// alloc.go); ours must make a small fraction of it.
func TestNullableColumnGarbage(t *testing.T) {
	defer func(old memory.Allocator) { memory.DefaultAllocator = old }(memory.DefaultAllocator)
	written := func(def memory.Allocator) uint64 {
		memory.DefaultAllocator = def
		// Two collections empty the writer's buffer pool of buffers
		// made by the other allocator.
		runtime.GC()
		runtime.GC()
		mem := memory.NewGoAllocator()
		schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
		b := array.NewInt64Builder(mem)
		const rows = 1 << 20
		for i := range rows {
			if i%9 == 0 {
				b.AppendNull()
			} else {
				b.Append(int64(i))
			}
		}
		col := b.NewArray()
		rec := array.NewRecord(schema, []arrow.Array{col}, rows)
		f, err := os.Create(filepath.Join(t.TempDir(), "n.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := newParquetSink(f, schema, tableConfig{mem: mem, maxRows: rows, level: compress.DefaultCompressionLevel})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.write(rec); err != nil {
			t.Fatal(err)
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		rec.Release()
		col.Release()
		return after.TotalAlloc - before.TotalAlloc
	}
	goAlloc := written(memory.NewGoAllocator())
	roomy := written(roomyAllocator{})
	t.Logf("allocated writing 1 Mi rows: %d MB with the Go allocator, %d MB with ours", goAlloc>>20, roomy>>20)
	if roomy*5 > goAlloc {
		t.Errorf("allocated %d bytes with roomyAllocator, %d with the Go allocator: want under a fifth", roomy, goAlloc)
	}
}
