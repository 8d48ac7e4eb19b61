package parquet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/compress"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Errors returned by the Writer; test with errors.Is.
var (
	ErrDuplicateSource = errors.New("parquet: duplicate source")
	ErrClosed          = errors.New("parquet: writer closed")
	ErrNilGraph        = errors.New("parquet: nil graph")
)

// DefaultRowGroupRows is the default number of rows per row group.
const DefaultRowGroupRows = 64 * 1024

// Options tune a Writer. The zero value is ready to use.
type Options struct {
	// RowGroupRows is how many rows of one table are buffered before they
	// are written as a row group (default DefaultRowGroupRows; heap
	// tables four times as many). It bounds the writer's memory: at most
	// twice that many rows per table are held (one row group written
	// while the next is collected).
	RowGroupRows int
	// CompressionLevel is the zstd level; 0 means the codec's default,
	// and level 1 for the heap tables (heapCompressionLevel).
	CompressionLevel int
	// Allocator for Arrow buffers; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
	// Format is the file format of the tables (default FormatParquet).
	Format Format
	// HeapTables are the heap tables to write besides the default ones
	// (HeapTables, ParseTables); their rows come through ObjectSink.
	HeapTables []string
}

// Format is the file format a Writer writes its tables in. Both hold the
// same tables with the same columns; only the container differs.
type Format int

const (
	// FormatParquet writes DIR/<table>.parquet: zstd, dictionary strings.
	FormatParquet Format = iota
	// FormatArrow writes DIR/<table>.arrow in the Arrow IPC file format
	// (Feather v2), uncompressed: pandas, Polars, DataFusion and DuckDB's
	// arrow extension read it without conversion, or memory-map it.
	FormatArrow
)

// Ext is the file name extension of the format's tables.
func (f Format) Ext() string {
	if f == FormatArrow {
		return ".arrow"
	}
	return ".parquet"
}

// String names the format as the CLI's --format does.
func (f Format) String() string {
	if f == FormatArrow {
		return "arrow"
	}
	return "parquet"
}

// Writer writes graphs as Parquet (or Arrow IPC) tables into a directory,
// one file per table (DIR/samples.parquet, …). Files are written under temporary names
// and renamed into place by Close, so a failed run leaves no half-written
// tables behind. A Writer is not safe for concurrent use.
type Writer struct {
	dir     string
	format  Format
	tables  map[string]*table
	order   []string // table names in file order
	heap    *heapRows
	sources map[string]bool
	err     error // sticky: the first write error
	closed  bool
}

// NewWriter creates dir if needed and opens one file per table in it.
// Existing files of the same names are replaced when Close succeeds.
func NewWriter(dir string, opts Options) (*Writer, error) {
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = DefaultRowGroupRows
	}
	heapLevel := opts.CompressionLevel
	if opts.CompressionLevel == 0 {
		opts.CompressionLevel = compress.DefaultCompressionLevel
		heapLevel = heapCompressionLevel
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	if opts.Format != FormatParquet && opts.Format != FormatArrow {
		return nil, fmt.Errorf("parquet: unknown format %d", opts.Format)
	}
	w := &Writer{dir: dir, format: opts.Format, tables: map[string]*table{}, sources: map[string]bool{}}
	cfg := tableConfig{dir: dir, format: opts.Format, mem: opts.Allocator, maxRows: opts.RowGroupRows, level: opts.CompressionLevel}
	w.order = append(slices.Clone(Tables), opts.HeapTables...)
	for _, name := range w.order {
		if schemaOf(name) == nil {
			return nil, fmt.Errorf("parquet: unknown table %q", name)
		}
	}
	for _, name := range w.order {
		tc := cfg
		if slices.Contains(opts.HeapTables, name) {
			tc.maxRows *= heapRowGroupFactor
			tc.level, tc.pageSize = heapLevel, heapPageSize
		}
		t, err := newTable(tc, name)
		if err != nil {
			w.abort()
			return nil, err
		}
		w.tables[name] = t
	}
	if len(opts.HeapTables) > 0 {
		w.heap = &heapRows{tables: map[string]*table{}}
		for _, name := range opts.HeapTables {
			w.heap.tables[name] = w.tables[name]
		}
	}
	return w, nil
}

// Add appends the graph's rows to every table, with the graph's
// Source.Path as the source name (or "source-N" when empty).
func (w *Writer) Add(g *graph.Graph) error {
	if g == nil {
		return ErrNilGraph
	}
	name := g.Source.Path
	if name == "" {
		name = "source-" + strconv.Itoa(len(w.sources)+1)
	}
	return w.AddAs(name, g)
}

// AddAs appends the graph's rows under the given source name, which must
// be unique within this Writer (it keys every row). Use it to give dumps
// from many hosts names that stay unique when directories are combined.
func (w *Writer) AddAs(source string, g *graph.Graph) error {
	return w.AddViews(source, g, nil)
}

// AddViews is AddAs writing only the named views to the samples, views
// and classes tables (nil: every view). Stacks, frames and threads are
// written whole.
func (w *Writer) AddViews(source string, g *graph.Graph, views []string) error {
	switch {
	case w.closed:
		return ErrClosed
	case w.err != nil:
		return w.err
	case g == nil:
		return ErrNilGraph
	case w.sources[source]:
		return fmt.Errorf("%w: %q", ErrDuplicateSource, source)
	}
	w.sources[source] = true
	j := &job{source: source, g: g}
	for _, v := range g.Views {
		if v != nil && (views == nil || slices.Contains(views, v.Name)) {
			j.views = append(j.views, v)
		}
	}
	if err := w.add(j); err != nil {
		w.err = err
		return err
	}
	return nil
}

// job is one graph being added: its source name and selected views.
type job struct {
	source string
	g      *graph.Graph
	views  []*graph.View
}

func (w *Writer) add(j *job) error {
	steps := []func(*job) error{
		w.addSource, w.addViews, w.addSamples, w.addStacks, w.addFrames, w.addThreads, w.addClasses, w.addPaths,
	}
	for _, step := range steps {
		if err := step(j); err != nil {
			return err
		}
	}
	return nil
}

// Close writes the remaining rows and the footers and moves the files
// into place. After an earlier write error it removes the files and
// returns that error. Close releases every Arrow buffer either way.
func (w *Writer) Close() error {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	if w.err != nil {
		w.abort()
		return w.err
	}
	var first error
	for _, name := range w.order {
		if err := w.tables[name].close(first == nil); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		// Tables already renamed stay; they are complete files.
		return first
	}
	return nil
}

// abort discards every table file.
func (w *Writer) abort() {
	for _, t := range w.tables {
		t.close(false)
	}
	w.closed = true
}

// Files returns the paths of the table files, in Tables order (they
// exist once Close has succeeded).
func (w *Writer) Files() []string {
	out := make([]string, 0, len(w.order))
	for _, name := range w.order {
		out = append(out, filepath.Join(w.dir, name+w.format.Ext()))
	}
	return out
}

// Sources returns how many sources have been added.
func (w *Writer) Sources() int { return len(w.sources) }

// WriteDir writes the graphs into dir with one Writer: a shortcut for
// NewWriter, Add for each graph, Close.
func WriteDir(dir string, opts Options, graphs ...*graph.Graph) error {
	w, err := NewWriter(dir, opts)
	if err != nil {
		return err
	}
	for _, g := range graphs {
		if err := w.Add(g); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
