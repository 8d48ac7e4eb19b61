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

// i64Column is an int64 column of a heap table.
type i64Column struct {
	nullable bool
	vals     []int64
	valid    validity // kept only when nullable
	// spare is the slice of the batch before the last, for the next.
	spare []int64
}

func (c *i64Column) append(v int64) {
	c.vals = append(c.vals, v)
	if c.nullable {
		c.valid.append(true)
	}
}

func (c *i64Column) appendNull() {
	c.vals = append(c.vals, 0)
	c.valid.append(false)
}

// newArray returns the batch's values as an array over the column's
// slices, and starts the next batch in the spare ones.
func (c *i64Column) newArray() arrow.Array {
	nulls := c.valid.nulls
	data := array.NewData(arrow.PrimitiveTypes.Int64, len(c.vals),
		[]*memory.Buffer{c.valid.buffer(), memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.vals))},
		nil, nulls, 0)
	defer data.Release()
	c.vals, c.spare = c.spare[:0], c.vals
	return array.NewInt64Data(data)
}

// i32Column is a dictionary column's indices.
type i32Column struct {
	nullable bool
	vals     []int32
	valid    validity // kept only when nullable
	spare    []int32
}

func (c *i32Column) append(v int32, ok bool) {
	c.vals = append(c.vals, v)
	if c.nullable {
		c.valid.append(ok)
	}
}

func (c *i32Column) newArray() arrow.Array {
	nulls := c.valid.nulls
	data := array.NewData(arrow.PrimitiveTypes.Int32, len(c.vals),
		[]*memory.Buffer{c.valid.buffer(), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.vals))},
		nil, nulls, 0)
	defer data.Release()
	c.vals, c.spare = c.spare[:0], c.vals
	return array.NewInt32Data(data)
}

// i64Columns returns, by field, the i64Columns of a heap table's int64
// columns, nil for the other fields; nil for a table that is not a heap
// table.
func i64Columns(name string, schema *arrow.Schema) []*i64Column {
	if heapFields(name) == nil {
		return nil
	}
	out := make([]*i64Column, schema.NumFields())
	for i, f := range schema.Fields() {
		if f.Type.ID() == arrow.INT64 {
			out[i] = &i64Column{nullable: f.Nullable}
		}
	}
	return out
}
