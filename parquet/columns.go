package parquet

import (
	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// The heap tables' int64 columns and dictionary indices are collected in
// plain Go slices rather than Arrow builders: an append is a slice append
// (an Arrow builder checks its capacity, grows its buffers by copying them
// into fresh zeroed memory, and sets a validity bit, every row), and the
// slices of a batch are used again two batches later instead of being
// allocated anew. A batch's arrays wrap the slices without a copy.
//
// Reuse is safe because a table hands its batches to its writer one at a
// time over an unbuffered channel: making batch N's arrays sets N-1's
// slices aside for batch N+1, and the first row of N+1 is appended only
// after flush has handed N over, which the writer takes once it has
// written and released N-1 (table.writer). Both sinks copy what they keep
// of a batch (Parquet encodes it into pages, IPC writes it to the file)
// before they return.

// validity is whether each value of a column is set, a byte a value
// (an append is then as cheap as the value's), packed into an Arrow
// validity bitmap when the batch ends.
type validity struct {
	set   []byte // 1: the value is set; 0: NULL
	nulls int
	bits  []byte // the packed bitmap of the last batch
	spare []byte // the bitmap of the batch before, for the next
}

func (v *validity) append(ok bool) {
	if ok {
		v.set = append(v.set, 1)
	} else {
		v.set = append(v.set, 0)
		v.nulls++
	}
}

// buffer is the batch's bitmap as an Arrow buffer, nil when every value
// is set, and starts the next batch.
func (v *validity) buffer() *memory.Buffer {
	nulls := v.nulls
	set := v.set
	v.set, v.nulls = v.set[:0], 0
	if nulls == 0 {
		return nil
	}
	bits := v.spare[:0]
	for i := 0; i < len(set); i += 8 {
		var b byte
		for j, s := range set[i:min(i+8, len(set))] {
			b |= s << j
		}
		bits = append(bits, b)
	}
	v.spare, v.bits = v.bits, bits
	return memory.NewBufferBytes(bits)
}

// numColumn is an int64 column of a heap table, or a dictionary
// column's int32 indices.
type numColumn[T int32 | int64] struct {
	nullable bool
	vals     []T
	valid    validity // kept only when nullable
	// spare is the slice of the batch before the last, for the next.
	spare []T
}

// append appends v, or NULL when ok is false.
func (c *numColumn[T]) append(v T, ok bool) {
	c.vals = append(c.vals, v)
	if c.nullable {
		c.valid.append(ok)
	}
}

func (c *numColumn[T]) appendNull() { c.append(0, false) }

// newArray returns the batch's values as an array over the column's
// slices, and starts the next batch in the spare ones.
func (c *numColumn[T]) newArray() arrow.Array {
	nulls := c.valid.nulls
	data := array.NewData(arrow.GetDataType[T](), len(c.vals),
		[]*memory.Buffer{c.valid.buffer(), memory.NewBufferBytes(arrow.GetBytes(c.vals))},
		nil, nulls, 0)
	defer data.Release()
	c.vals, c.spare = c.spare[:0], c.vals
	return array.MakeFromData(data)
}

func (c *numColumn[T]) release() {}

// ownColumn is a heap table column collected by the table itself rather
// than by an Arrow builder: a numColumn[int64] or a dictColumn.
type ownColumn interface {
	appendNull()
	// newArray returns the batch's values and starts the next batch.
	newArray() arrow.Array
	release()
}

// ownColumns returns, by field, the columns a heap table collects itself
// (int64 columns; with dictionaries, string columns with one
// (hasDictColumn)), nil for the other fields; nil for a table that is
// not a heap table.
func ownColumns(name string, schema *arrow.Schema, dicts bool, mem memory.Allocator) []ownColumn {
	if heapFields(name) == nil {
		return nil
	}
	out := make([]ownColumn, schema.NumFields())
	for i, f := range schema.Fields() {
		switch {
		case f.Type.ID() == arrow.INT64:
			out[i] = &numColumn[int64]{nullable: f.Nullable}
		case dicts && hasDictColumn(name, f):
			out[i] = newDictColumn(mem, f.Nullable)
		}
	}
	return out
}
