package source

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

const jdkGz = "../../testdata/jdk25-zoo-live.hprof.gz"

// sequentialGunzip inflates a whole file with the standard library, the
// independent reference.
func sequentialGunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := stdgzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// feed inflates path with the given member starts, as ParallelGunzip
// does, and returns the bytes and the member table (nil when the members
// did not chain to the end); the file stays open for the table.
func feed(t *testing.T, path string, starts func([]int64) []int64) ([]byte, *Members, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, _ := f.Stat()
	block, ok := isJDKChunkedGzip(f)
	if !ok {
		t.Fatalf("%s is not recognised as the JDK's chunked gzip", path)
	}
	s, err := memberStarts(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	var table atomic.Pointer[Members]
	go feedMembers(f, fi.Size(), block, starts(s), pw, &table)
	b, err := io.ReadAll(pr)
	return b, table.Load(), err
}

func TestParallelGunzipEqualsSequential(t *testing.T) {
	want := sequentialGunzip(t, jdkGz)
	for name, starts := range map[string]func([]int64) []int64{
		"as found": func(s []int64) []int64 { return s },
		// A candidate that is not a member start (inside member 2).
		"false start": func(s []int64) []int64 {
			out := append([]int64(nil), s[:2]...)
			out = append(out, s[1]+100)
			return append(out, s[2:]...)
		},
		// A member start the scan missed: the rest is read sequentially.
		"missed start":   func(s []int64) []int64 { return append(append([]int64(nil), s[:1]...), s[2:]...) },
		"only the first": func(s []int64) []int64 { return s[:1] },
	} {
		t.Run(name, func(t *testing.T) {
			got, table, err := feed(t, jdkGz, starts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("inflated %d bytes, want %d (identical)", len(got), len(want))
			}
			chained := name == "as found" || name == "false start"
			if chained != (table != nil) {
				t.Fatalf("member table %v, want one: %v", table != nil, chained)
			}
			if table != nil {
				checkReadAt(t, table, want)
			}
		})
	}
}

func TestParallelGunzipTruncated(t *testing.T) {
	b, err := os.ReadFile(jdkGz)
	if err != nil {
		t.Fatal(err)
	}
	full := sequentialGunzip(t, jdkGz)
	for _, n := range []int{len(b) / 3, len(b) - 20, len(b) - 1} {
		p := filepath.Join(t.TempDir(), "cut.hprof.gz")
		os.WriteFile(p, b[:n], 0o644)
		got, table, err := feed(t, p, func(s []int64) []int64 { return s })
		if err == nil {
			t.Errorf("cut at %d: no error", n)
		}
		if table != nil {
			t.Errorf("cut at %d: a member table", n)
		}
		if !bytes.HasPrefix(full, got) || len(got) == 0 {
			t.Errorf("cut at %d: %d bytes that are not a prefix of the whole", n, len(got))
		}
	}
}

// checkReadAt reads windows of the inflated bytes through the member
// table: within a member, across members, at the end and past it.
func checkReadAt(t *testing.T, m *Members, want []byte) {
	t.Helper()
	if len(m.at) < 4 {
		t.Fatalf("%d members: the fixture should have several", len(m.at)-1)
	}
	end := int64(len(want))
	for _, w := range [][2]int64{
		{0, 100},
		{m.at[2] - 10, 30},                    // across a member boundary
		{m.at[1] - 5, 10 + m.at[2] - m.at[1]}, // three members
		{5, 20},                               // back to the first member
		{end - 50, 50},                        // the end
	} {
		p := make([]byte, w[1])
		n, err := m.ReadAt(p, w[0])
		if err != nil || n != len(p) || !bytes.Equal(p, want[w[0]:w[0]+w[1]]) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want the inflated bytes", w[1], w[0], n, err)
		}
	}
	p := make([]byte, 100)
	if n, err := m.ReadAt(p, end-40); n != 40 || err != io.EOF || !bytes.Equal(p[:n], want[end-40:]) {
		t.Errorf("ReadAt past the end = %d, %v; want 40, EOF", n, err)
	}
}
