package text

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdataDir is the repository's testdata folder.
const testdataDir = "../../testdata"

// corpusDirs hold the shared real files; tests sweep them when present.
var corpusDirs = []string{"../../../shared/corpus/hprof-agent", "../../../shared/corpus/thirdparty",
	"../../../shared/corpus/external", "../../../shared/corpus/jvmpi-era"}

// localTestdata holds the text inputs only this package reads: excerpts
// that make no view (the repository's testdata holds inputs every
// emitter's tests convert).
const localTestdata = "testdata"

// textFixtures lists the text reports in testdata (plain or .gz) and in
// this package's own testdata.
func textFixtures(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{testdataDir, localTestdata} {
		for _, pat := range []string{"*.txt", "*.txt.gz", "*.txt.raw"} {
			m, err := filepath.Glob(filepath.Join(dir, pat))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range m {
				if isTextReport(f) {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// corpusFiles lists the text reports of the shared corpus, if present.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, dir := range corpusDirs {
		m, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && isTextReport(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// isTextReport says whether a file starts like a report (by content, as
// the converter decides).
func isTextReport(path string) bool {
	b, err := readFixture(path, 512)
	return err == nil && Sniff(b)
}

// readFixture reads a file, gunzipping .gz; limit > 0 stops early.
func readFixture(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	if limit > 0 {
		r = io.LimitReader(r, limit)
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, r)
	return buf.Bytes(), err
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := readFixture(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// caseName is the fixture name without .gz.
func caseName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".gz")
}
