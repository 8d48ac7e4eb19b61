package parquet

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// The heap tables' own columns make the arrays Arrow's builders make from
// the same appends, batch after batch, and a batch's array is untouched
// while the next batch is collected (the writer may still be writing it).
func TestColumnsAsArrowBuilders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nullable := range []bool{false, true} {
		c64 := &numColumn[int64]{nullable: nullable}
		c32 := &numColumn[int32]{nullable: nullable}
		var prev64, prev32, want64Prev, want32Prev arrow.Array
		for batch := range 5 {
			b64 := array.NewInt64Builder(memory.DefaultAllocator)
			b32 := array.NewInt32Builder(memory.DefaultAllocator)
			// Lengths not a multiple of 8, all-set and all-null batches.
			n := []int{1003, 8, 0, 4097, 1}[batch]
			for range n {
				ok := !nullable || (batch != 3 && rng.IntN(3) > 0)
				v := rng.Int64() - 1<<62
				switch {
				case ok:
					c64.append(v, true)
					c32.append(int32(v), true)
					b64.Append(v)
					b32.Append(int32(v))
				default:
					c64.appendNull()
					c32.append(0, false)
					b64.AppendNull()
					b32.AppendNull()
				}
			}
			got64, got32 := c64.newArray(), c32.newArray()
			want64, want32 := b64.NewArray(), b32.NewArray()
			if !array.Equal(got64, want64) || !array.Equal(got32, want32) {
				t.Fatalf("nullable %v, batch %d: got %v / %v, want %v / %v", nullable, batch, got64, got32, want64, want32)
			}
			if got64.NullN() != want64.NullN() || got32.NullN() != want32.NullN() {
				t.Fatalf("nullable %v, batch %d: null counts %d/%d, want %d/%d",
					nullable, batch, got64.NullN(), got32.NullN(), want64.NullN(), want32.NullN())
			}
			if prev64 != nil && (!array.Equal(prev64, want64Prev) || !array.Equal(prev32, want32Prev)) {
				t.Fatalf("nullable %v: batch %d changed while batch %d was collected", nullable, batch-1, batch)
			}
			prev64, prev32, want64Prev, want32Prev = got64, got32, want64, want32
		}
	}
}
