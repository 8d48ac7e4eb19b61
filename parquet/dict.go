package parquet

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// dictColumn collects a string column of a heap table as indices into
// the batch's distinct values, which the Parquet writer then takes as
// they are for the column chunk's dictionary page (pqarrow's direct
// dictionary write) instead of hashing every value again. The file is a
// dictionary-encoded string column either way; only the writing is
// cheaper. The heap tables' repeated strings (source, class, kind,
// field name) are a few distinct values over millions of rows.
//
// The distinct values are kept in the order first seen, like the
// writer's own dictionary, and reset with every batch (row group).
type dictColumn struct {
	ids  map[string]int32
	vals *array.StringBuilder // the distinct values, by id
	idx  numColumn[int32]
	typ  *arrow.DictionaryType
	mem  memory.Allocator

	// recent holds ids of values seen, at a slot chosen by the address
	// of their bytes: a row's repeated strings (a class's name) are
	// mostly the very same string each time, found here without hashing
	// their bytes. A slot whose string differs is looked up in ids.
	recent [dictRecent]dictEntry
}

const dictRecent = 256

type dictEntry struct {
	s  string
	id int32
}

func newDictColumn(mem memory.Allocator, nullable bool) *dictColumn {
	return &dictColumn{
		idx:  numColumn[int32]{nullable: nullable},
		ids:  map[string]int32{},
		vals: array.NewStringBuilder(mem),
		typ:  &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String},
		mem:  mem,
	}
}

func (d *dictColumn) append(s string) {
	e := &d.recent[(uintptr(unsafe.Pointer(unsafe.StringData(s)))>>3)%dictRecent]
	if e.s == s && s != "" {
		d.idx.append(e.id, true)
		return
	}
	id, ok := d.ids[s]
	if !ok {
		id = int32(len(d.ids))
		d.ids[strings.Clone(s)] = id
		d.vals.Append(s)
	}
	*e = dictEntry{s: s, id: id}
	d.idx.append(id, true)
}

func (d *dictColumn) appendNull() { d.idx.append(0, false) }

// newArray returns the batch's values as a dictionary array and starts
// the next batch. A batch of a nullable column without a NULL is a plain
// string array instead: Arrow v15 writes a dictionary array of a
// nullable column that has no NULL through a path that slices its
// indices wrongly past the first 1,024 (columnWriter.maybeReplaceValidity
// takes bytes [offset×4, length×4)), failing or writing wrong indices.
// The writer then hashes the values into the chunk's dictionary itself.
func (d *dictColumn) newArray() arrow.Array {
	vals, idx := d.vals.NewArray(), d.idx.newArray()
	defer vals.Release()
	defer idx.Release()
	clear(d.ids)
	d.recent = [dictRecent]dictEntry{}
	if d.idx.nullable && idx.NullN() == 0 {
		return d.dense(vals.(*array.String), idx.(*array.Int32))
	}
	return array.NewDictionaryArray(d.typ, idx, vals)
}

// dense is the string array of the values idx picks from vals.
func (d *dictColumn) dense(vals *array.String, idx *array.Int32) arrow.Array {
	b := array.NewStringBuilder(d.mem)
	defer b.Release()
	b.Reserve(idx.Len())
	for _, i := range idx.Int32Values() {
		b.Append(vals.Value(int(i)))
	}
	return b.NewArray()
}

func (d *dictColumn) release() { d.vals.Release() }

// hasDictColumn tells whether field f of heap table name is collected
// by a dictColumn: a string column with a dictionary (not in
// uniqueColumns), required or not. These columns are written without
// statistics (heapColumnProps), which Arrow v15 gets wrong for
// dictionary arrays written directly: for a required column it counts
// minus one null per row, which arrow-rs rejects, and for a column with
// nulls it fails, taking the dictionary's values by the distinct
// indices, null among them. Min/max of names over a row group of
// unsorted rows prune nothing anyway.
func hasDictColumn(name string, f arrow.Field) bool {
	return f.Type.ID() == arrow.STRING && !slices.Contains(uniqueColumns[name], f.Name)
}
