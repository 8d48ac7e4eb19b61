package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
)

// The JDK's `jcmd GC.heap_dump -gz=N` output is not one gzip stream but
// many independent members, each holding at most BLOCKSIZE bytes of the
// dump; the first member says so in its comment ("HPROF
// BLOCKSIZE=1048576"). Such a file is inflated here on several cores:
// member starts are found by their fixed header, members are inflated
// at once, and each one must end exactly where the next begins, with a
// good CRC, or reading falls back to one sequential stream from there.
// Any other gzip file is read sequentially.

// gzipMagic starts every gzip member: magic and the deflate method.
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// plausibleMember reports whether h (at least 10 bytes) looks like a gzip
// member header: no reserved flag bits, a known XFL and OS byte. JDKs
// differ in what later members carry (JDK 17 repeats the BLOCKSIZE
// comment in every member; other builds write none), so any plausible
// header is a candidate; the chain check rejects false ones.
func plausibleMember(h []byte) bool {
	flags, xfl, os := h[3], h[8], h[9]
	return flags&0xE0 == 0 && (xfl == 0 || xfl == 2 || xfl == 4) && (os <= 13 || os == 255)
}

// maxMemberSize bounds what one member may inflate to (the JDK writes 1
// MiB blocks; BLOCKSIZE is read from the file but capped here).
const maxMemberSize = 64 << 20

// isJDKChunkedGzip reports whether the file starts with the JDK's
// chunked gzip header and returns the block size it announces.
func isJDKChunkedGzip(f io.ReaderAt) (int, bool) {
	head := make([]byte, 256)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if n < 10 || head[0] != 0x1f || head[1] != 0x8b || head[2] != 8 || head[3]&0x10 == 0 || head[3]&^0x10 != 0 {
		return 0, false // not gzip, or no FCOMMENT, or other flags set
	}
	comment := head[10:]
	end := bytes.IndexByte(comment, 0)
	if end < 0 {
		return 0, false
	}
	var size int
	if _, err := fmt.Sscanf(string(comment[:end]), "HPROF BLOCKSIZE=%d", &size); err != nil || size <= 0 || size > maxMemberSize {
		return 0, false
	}
	return size, true
}

// memberStarts finds the offsets where members appear to start: 0, and
// every later JDK member header. A false match inside compressed data
// is caught when members are chained.
func memberStarts(f io.ReaderAt, size int64) ([]int64, error) {
	starts := []int64{0}
	const chunk = 4 << 20
	buf := make([]byte, chunk+10)
	for off := int64(1); off < size; off += chunk {
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return nil, err
		}
		b := buf[:n]
		for i := 0; ; {
			j := bytes.Index(b[i:], gzipMagic)
			if j < 0 {
				break
			}
			p := i + j
			if p >= chunk {
				break // the next chunk sees it
			}
			if p+10 <= len(b) && plausibleMember(b[p:]) {
				starts = append(starts, off+int64(p))
			}
			i = p + 1
		}
	}
	return starts, nil
}

// member is one inflated member.
type member struct {
	start, end int64 // compressed offsets: the member is [start, end)
	data       []byte
	err        error
}

// inflateMemberGo inflates the single member starting at start with the
// pure Go inflater.
func inflateMemberGo(f io.ReaderAt, size, start int64, block int) member {
	m := member{start: start}
	sr := io.NewSectionReader(f, start, size-start)
	br := bufio.NewReaderSize(sr, 64<<10)
	zr, err := gzip.NewReader(br)
	if err != nil {
		m.err = err
		return m
	}
	zr.Multistream(false)
	var out bytes.Buffer
	out.Grow(block)
	// One byte more than a block may hold tells a lying member.
	if _, err := io.Copy(&out, io.LimitReader(zr, int64(block)+1)); err != nil {
		m.err = err
		return m
	}
	if out.Len() > block {
		m.err = errors.New("member larger than the announced block size")
		return m
	}
	pos, _ := sr.Seek(0, io.SeekCurrent)
	m.end = start + pos - int64(br.Buffered())
	m.data = out.Bytes()
	return m
}

// Gunzip is a JDK chunked gzip file being inflated in parallel.
type Gunzip struct {
	*io.PipeReader
	members atomic.Pointer[Members]
}

// Inflated gives random access to the inflated bytes once the whole file
// was read through members that chained to its end (nil otherwise: a
// chain that broke was read as one stream, whose members are unknown).
func (g *Gunzip) Inflated() *Members { return g.members.Load() }

// Members are the members of a chunked gzip file with where each one's
// bytes start once inflated: ReadAt inflates only the members it reads
// from, keeping the last one.
type Members struct {
	f     io.ReaderAt
	size  int64
	block int
	comp  []int64 // where member i starts in the file
	at    []int64 // where its bytes start once inflated; one more: the end

	mu   sync.Mutex
	cur  int // the member data holds, -1 for none
	data []byte
}

// ReadAt reads inflated bytes as io.ReaderAt does.
func (m *Members) ReadAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	end := m.at[len(m.at)-1]
	if off < 0 {
		return 0, errors.New("gzip: negative offset")
	}
	n := 0
	for n < len(p) && off < end {
		// The last member starting at or before off.
		i := sort.Search(len(m.comp), func(i int) bool { return m.at[i+1] > off })
		if i != m.cur {
			inf := newMemberInflater(m.block) // libdeflate where built with it, as the first pass
			mb := inf.inflate(m.f, m.size, m.comp[i])
			inf.close()
			if mb.err == nil && int64(len(mb.data)) != m.at[i+1]-m.at[i] {
				mb.err = errors.New("member inflates to another length than when first read")
			}
			if mb.err != nil {
				m.cur = -1
				return n, fmt.Errorf("gzip member at byte %d: %w", m.comp[i], mb.err)
			}
			m.cur, m.data = i, mb.data
		}
		c := copy(p[n:], m.data[off-m.at[i]:])
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// ParallelGunzip reads a JDK chunked gzip file, inflating members on
// several goroutines. It returns ok=false for other files.
func ParallelGunzip(f *os.File) (*Gunzip, bool) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return ParallelGunzipAt(f, fi.Size())
}

// ParallelGunzipAt is ParallelGunzip over any random-access input of
// size bytes (an object in a bucket, read in ranges).
func ParallelGunzipAt(f io.ReaderAt, size int64) (*Gunzip, bool) {
	block, ok := isJDKChunkedGzip(f)
	if !ok {
		return nil, false
	}
	starts, err := memberStarts(f, size)
	if err != nil {
		return nil, false
	}
	pr, pw := io.Pipe()
	g := &Gunzip{PipeReader: pr}
	go feedMembers(f, size, block, starts, pw, &g.members)
	return g, true
}

// feedMembers inflates members in parallel and writes them, in order and
// chained, to w. When they chain to the end of the file, their table is
// stored in done before w is closed.
func feedMembers(f io.ReaderAt, size int64, block int, starts []int64, w *io.PipeWriter, done *atomic.Pointer[Members]) {
	workers := max(1, runtime.GOMAXPROCS(0))
	type job struct {
		i   int
		out chan member
	}
	jobs := make(chan job)
	queue := make(chan chan member, 2*workers) // in order, bounded in flight
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inf := newMemberInflater(block)
			defer inf.close()
			for j := range jobs {
				j.out <- inf.inflate(f, size, starts[j.i])
			}
		}()
	}
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(queue)
		for i := range starts {
			out := make(chan member, 1)
			select {
			case queue <- out:
			case <-stop:
				return
			}
			select {
			case jobs <- job{i, out}:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range queue { // let producers finish
		}
		wg.Wait()
	}()
	pos := int64(0)
	table := &Members{f: f, size: size, block: block, cur: -1, at: []int64{0}}
	for out := range queue {
		m := <-out
		if m.start < pos {
			continue // a false start inside a member already read
		}
		if m.start > pos || m.err != nil {
			// Chain broken (a member start was missed, or a candidate
			// was not a member): read the rest sequentially.
			w.CloseWithError(sequentialFrom(f, size, pos, w))
			return
		}
		if _, err := w.Write(m.data); err != nil {
			return // the reader stopped
		}
		table.comp = append(table.comp, m.start)
		table.at = append(table.at, table.at[len(table.at)-1]+int64(len(m.data)))
		pos = m.end
	}
	if pos < size {
		w.CloseWithError(sequentialFrom(f, size, pos, w))
		return
	}
	done.Store(table)
	w.Close()
}

// sequentialFrom inflates the members from off to the end as one stream.
func sequentialFrom(f io.ReaderAt, size, off int64, w io.Writer) error {
	zr, err := gzip.NewReader(bufio.NewReaderSize(io.NewSectionReader(f, off, size-off), 1<<20))
	if err != nil {
		return fmt.Errorf("gzip at byte %d: %w", off, err)
	}
	if _, err := io.Copy(w, zr); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	return nil
}
