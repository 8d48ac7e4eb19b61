package source

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"os"
	"path/filepath"
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

func feed(t *testing.T, path string, starts func([]int64) []int64) ([]byte, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
	go feedMembers(f, fi.Size(), block, starts(s), pw)
	return io.ReadAll(pr)
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
			got, err := feed(t, jdkGz, starts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("inflated %d bytes, want %d (identical)", len(got), len(want))
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
		got, err := feed(t, p, func(s []int64) []int64 { return s })
		if err == nil {
			t.Errorf("cut at %d: no error", n)
		}
		if !bytes.HasPrefix(full, got) || len(got) == 0 {
			t.Errorf("cut at %d: %d bytes that are not a prefix of the whole", n, len(got))
		}
	}
}
