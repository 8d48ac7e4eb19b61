package parquet

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	pq "github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// table is one table file being written: an Arrow record builder that
// collects rows, flushed as one record batch every maxRows rows to the
// sink, which writes it as a Parquet row group or an Arrow IPC batch.
//
// The batches are encoded and written on a goroutine of the table's own
// (started at its first batch), while the rows of the next batch are
// collected: encoding and compressing a row group is most of a big
// table's cost (bench-1g's heap tables: about two thirds of the CPU), and
// it then runs beside the decoder and the other tables' encoders. The
// hand-over waits for the writer, so a table holds at most two batches'
// rows (one being written, the next being collected); the file's row
// groups keep their order, and its bytes are those of a serial write.
type table struct {
	name    string
	final   string // DIR/<name>.<ext>
	tmp     string // written here, renamed to final on success
	sink    sink
	b       *array.RecordBuilder
	rows    int // rows in b not yet written
	maxRows int
	fields  int // columns a row has
	r       row // reused by row()
	// own are, by field, the heap table columns collected by the table
	// (ownColumns), nil for the others and for the other tables.
	own []ownColumn

	batches chan arrow.Record // to the writer goroutine; nil until the first batch
	done    chan struct{}     // closed when the writer has returned
	mu      sync.Mutex
	werr    error // the writer's first error
}

// sink writes record batches of one schema to a file in one format.
type sink interface {
	// write writes one batch (a Parquet row group, an IPC record batch).
	write(rec arrow.Record) error
	// close writes the footer and closes the file.
	close() error
}

// tableConfig is what every table of a Writer shares.
type tableConfig struct {
	dir     string
	format  Format
	mem     memory.Allocator
	maxRows int
	level   int // zstd level (Parquet)
	// pageSize is the data page size in bytes (Parquet); 0: Arrow's
	// default, 1 MiB.
	pageSize int64
}

func newTable(cfg tableConfig, name string) (*table, error) {
	schema := schemaOf(name)
	file := name + cfg.format.Ext()
	t := &table{
		name:    name,
		final:   filepath.Join(cfg.dir, file),
		tmp:     filepath.Join(cfg.dir, "."+file+".tmp"),
		maxRows: cfg.maxRows,
	}
	f, err := os.Create(t.tmp)
	if err != nil {
		return nil, fmt.Errorf("parquet: table %s: %w", name, err)
	}
	if cfg.format == FormatArrow {
		t.sink, err = newIPCSink(f, schema, cfg.mem)
	} else {
		t.sink, err = newParquetSink(f, schema, cfg, heapColumnProps(name)...)
	}
	if err != nil {
		f.Close()
		os.Remove(t.tmp)
		return nil, fmt.Errorf("parquet: table %s: %w", name, err)
	}
	t.b = array.NewRecordBuilder(cfg.mem, schema)
	t.fields = schema.NumFields()
	t.own = ownColumns(name, schema, cfg.format == FormatParquet, cfg.mem)
	return t, nil
}

// dictionaryPageLimit is the dictionary size past which a column chunk
// goes on in plain pages. Arrow v15 then lists the chunk's two encodings
// in its footer in the order of a Go map, so the same rows would not give
// the same file twice. Its default, 1 MB, is passed by a row group of
// 256 Ki distinct int64 values (a heap table's sizes and lengths); a
// String's text, the one column whose distinct values pass 64 MB, has no
// dictionary (uniqueColumns). Tests lower it to write the plain pages
// after a dictionary that readers must still read.
var dictionaryPageLimit int64 = 64 << 20

// parquetSink writes record batches as Parquet row groups.
type parquetSink struct {
	fw     *pqarrow.FileWriter
	f      *errFile
	schema *arrow.Schema
}

func newParquetSink(f *os.File, schema *arrow.Schema, cfg tableConfig, extra ...pq.WriterProperty) (*parquetSink, error) {
	opts := []pq.WriterProperty{
		pq.WithAllocator(cfg.mem),
		pq.WithCompression(compress.Codecs.Zstd),
		pq.WithCompressionLevel(cfg.level),
		pq.WithDictionaryDefault(true),
		pq.WithDictionaryPageSizeLimit(dictionaryPageLimit),
		pq.WithMaxRowGroupLength(int64(cfg.maxRows)),
		pq.WithStats(true),
		pq.WithCreatedBy(CreatedBy()),
		// The format gives the root schema element no repetition; v15
		// writes REPEATED unless told, which hyparquet, Velox, Impala and
		// parquet-go misread. REQUIRED is what parquet-java, arrow-rs and
		// pyarrow write.
		pq.WithRootRepetition(pq.Repetitions.Required),
	}
	if cfg.pageSize > 0 {
		opts = append(opts, pq.WithDataPageSize(cfg.pageSize))
	}
	props := pq.NewWriterProperties(append(opts, extra...)...)
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(cfg.mem), pqarrow.WithStoreSchema())
	s := &parquetSink{f: &errFile{File: f}, schema: schema}
	err := s.noPanic(func() (err error) {
		s.fw, err = pqarrow.NewFileWriter(schema, s.f, props, aprops)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (s *parquetSink) write(rec arrow.Record) error {
	return s.noPanic(func() error {
		if rec.Schema().Equal(s.schema) {
			return s.fw.Write(rec)
		}
		// Dictionary arrays (dictColumn) for the file's string columns:
		// written column by column, as FileWriter.Write takes only
		// records of the file's own schema.
		s.fw.NewRowGroup()
		for _, c := range rec.Columns() {
			if err := s.fw.WriteColumnData(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// close writes the footer; FileWriter.Close also closes the file.
func (s *parquetSink) close() error { return s.noPanic(s.fw.Close) }

// noPanic runs fn and turns a panic of Arrow's into an error: v15's
// Parquet writer panics when it cannot write a file's first bytes (a
// full disk), saying only "failed to write magic number"; the file's own
// error says why.
func (s *parquetSink) noPanic(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
			if s.f.err != nil {
				err = s.f.err
			}
		}
	}()
	return fn()
}

// errFile is a table's file, keeping its first write error.
type errFile struct {
	*os.File
	err error
}

func (f *errFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// ipcSink writes record batches to an Arrow IPC file, uncompressed so
// that every IPC reader (and a memory map) can read it as it is.
type ipcSink struct {
	f  *os.File
	fw *ipc.FileWriter
}

func newIPCSink(f *os.File, schema *arrow.Schema, mem memory.Allocator) (*ipcSink, error) {
	fw, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err != nil {
		return nil, err
	}
	return &ipcSink{f: f, fw: fw}, nil
}

func (s *ipcSink) write(rec arrow.Record) error { return s.fw.Write(rec) }

func (s *ipcSink) close() error {
	err := s.fw.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// endRow counts one appended row and writes a row group when enough
// rows are buffered.
func (t *table) endRow() error {
	t.rows++
	if t.rows >= t.maxRows {
		return t.flush()
	}
	return nil
}

// flush hands the buffered rows to the writer as one row group. An
// error of the writer's shows at the next flush or at close.
func (t *table) flush() error {
	if err := t.writeErr(); err != nil {
		return err
	}
	if t.rows == 0 {
		return nil
	}
	rec := t.newRecord()
	t.rows = 0
	if t.batches == nil {
		t.batches, t.done = make(chan arrow.Record), make(chan struct{})
		go t.writer()
	}
	t.batches <- rec
	return nil
}

// newRecord returns the buffered rows as a record and empties the
// builders.
func (t *table) newRecord() arrow.Record {
	if t.own == nil {
		return t.b.NewRecord()
	}
	// The record's schema is that of its arrays: a dictColumn's batch is a
	// dictionary array, or a plain one (dictColumn.newArray).
	base := t.b.Schema()
	fields := base.Fields()
	cols := make([]arrow.Array, len(fields))
	for i := range cols {
		if c := t.own[i]; c != nil {
			cols[i] = c.newArray()
		} else {
			cols[i] = t.b.Field(i).NewArray()
		}
		fields[i].Type = cols[i].DataType()
	}
	md := base.Metadata()
	schema := arrow.NewSchema(fields, &md)
	rec := array.NewRecord(schema, cols, int64(t.rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// writer writes the batches flush hands over, in order, releasing each;
// after an error it only releases them.
func (t *table) writer() {
	defer close(t.done)
	for rec := range t.batches {
		if t.writeErr() == nil {
			if err := t.sink.write(rec); err != nil {
				t.mu.Lock()
				t.werr = fmt.Errorf("parquet: table %s: writing row group: %w", t.name, err)
				t.mu.Unlock()
			}
		}
		rec.Release()
	}
}

func (t *table) writeErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.werr
}

// drain waits until every batch handed over is written.
func (t *table) drain() error {
	if t.batches != nil {
		close(t.batches)
		<-t.done
		t.batches = nil
	}
	return t.writeErr()
}

// close flushes the last rows, writes the footer and renames the file into
// place. With keep false (after an error) it discards the file instead.
func (t *table) close(keep bool) error {
	var err error
	if keep {
		err = t.flush()
	}
	if derr := t.drain(); err == nil && keep {
		err = derr
	}
	if t.sink != nil {
		if cerr := t.sink.close(); err == nil && cerr != nil {
			err = fmt.Errorf("parquet: table %s: closing: %w", t.name, cerr)
		}
		t.sink = nil
	}
	if t.b != nil {
		t.b.Release()
		t.b = nil
	}
	for _, c := range t.own {
		if c != nil {
			c.release()
		}
	}
	t.own = nil
	if keep && err == nil {
		if rerr := os.Rename(t.tmp, t.final); rerr != nil {
			err = fmt.Errorf("parquet: table %s: %w", t.name, rerr)
		}
	}
	if !keep || err != nil {
		os.Remove(t.tmp)
	}
	return err
}

// row appends one row column by column, in schema order; end checks
// that every column got a value and counts the row.
type row struct {
	t *table
	i int
}

// row starts a new row.
func (t *table) row() *row {
	t.r = row{t: t}
	return &t.r
}

func (r *row) next() array.Builder {
	b := r.t.b.Field(r.i)
	r.i++
	return b
}

// end finishes the row and writes a row group when enough rows are
// buffered.
func (r *row) end() error {
	if r.i != r.t.fields {
		return fmt.Errorf("parquet: table %s: row has %d of %d columns", r.t.name, r.i, r.t.fields)
	}
	return r.t.endRow()
}

func (r *row) null() {
	if c := r.ownColumn(); c != nil {
		c.appendNull()
		r.i++
		return
	}
	r.next().AppendNull()
}

func (r *row) str(s string) {
	if d, ok := r.ownColumn().(*dictColumn); ok {
		d.append(s)
		r.i++
		return
	}
	r.next().(*array.StringBuilder).Append(s)
}

// ownColumn is the ownColumn of the next column, nil if it has none.
func (r *row) ownColumn() ownColumn {
	if r.t.own == nil {
		return nil
	}
	return r.t.own[r.i]
}

// optStr appends NULL for "".
func (r *row) optStr(s string) {
	if s == "" {
		r.null()
		return
	}
	r.str(s)
}

func (r *row) i64(v int64) {
	if c, ok := r.ownColumn().(*numColumn[int64]); ok {
		c.append(v, true)
		r.i++
		return
	}
	r.next().(*array.Int64Builder).Append(v)
}
func (r *row) i32(v int32) { r.next().(*array.Int32Builder).Append(v) }

// optI64 appends NULL when ok is false.
func (r *row) optI64(v int64, ok bool) {
	if !ok {
		r.null()
		return
	}
	r.i64(v)
}

// optI32 appends NULL for 0.
func (r *row) optI32(v int32) {
	if v == 0 {
		r.null()
		return
	}
	r.i32(v)
}

// time appends a UTC microsecond timestamp, NULL for the zero time.
func (r *row) time(t time.Time) {
	if t.IsZero() {
		r.null()
		return
	}
	r.next().(*array.TimestampBuilder).Append(arrow.Timestamp(t.UnixMicro()))
}

func (r *row) strs(ss []string) {
	lb := r.next().(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for _, s := range ss {
		vb.Append(s)
	}
}

// optStrs appends NULL for an empty list.
func (r *row) optStrs(ss []string) {
	if len(ss) == 0 {
		r.null()
		return
	}
	r.strs(ss)
}

func (r *row) i64s(vs []int64) {
	lb := r.next().(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder().(*array.Int64Builder)
	vb.AppendValues(vs, nil)
}

// counts appends a map<string,int64> with keys in the given order, NULL
// when empty.
func (r *row) counts(keys []string, vals []int64) {
	if len(keys) == 0 {
		r.null()
		return
	}
	mb := r.next().(*array.MapBuilder)
	mb.Append(true)
	kb := mb.KeyBuilder().(*array.StringBuilder)
	ib := mb.ItemBuilder().(*array.Int64Builder)
	for i, k := range keys {
		kb.Append(k)
		ib.Append(vals[i])
	}
}

// strMap appends a map<string,string>, NULL when empty.
func (r *row) strMap(keys, vals []string) {
	if len(keys) == 0 {
		r.null()
		return
	}
	mb := r.next().(*array.MapBuilder)
	mb.Append(true)
	kb := mb.KeyBuilder().(*array.StringBuilder)
	ib := mb.ItemBuilder().(*array.StringBuilder)
	for i, k := range keys {
		kb.Append(k)
		ib.Append(vals[i])
	}
}
