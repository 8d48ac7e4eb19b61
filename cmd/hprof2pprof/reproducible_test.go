package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertReproducible: the same input converted again gives the same
// bytes, in every format. The decoders meet classes and traces in a map's
// or parallel workers' order; the ids the tables carry (Parquet's and
// Arrow's stack_id and frame_id) must not follow it.
func TestConvertReproducible(t *testing.T) {
	root := filepath.Join("..", "..", "testdata")
	inputs := []string{
		filepath.Join(root, "jdk17-zoo-live.hprof"),
		filepath.Join(root, "heap-all-cpu-samples.allocwork.jdk25.hprof"),
	}
	for _, format := range []string{"parquet", "arrow", "pprof", "otlp"} {
		t.Run(format, func(t *testing.T) {
			var first map[string][]byte
			for round := range 3 {
				dir := t.TempDir()
				args := []string{"convert", "-q", "--format", format, "--view", "heap,alloc,cpu,threads,retained", "-d", dir}
				if format == "parquet" || format == "arrow" {
					args = append(args, "--tables", "heap")
				}
				var stderr bytes.Buffer
				if code := run(context.Background(), append(args, inputs...), &env{stdout: &bytes.Buffer{}, stderr: &stderr}); code != exitOK {
					t.Fatalf("%v: exit %d\n%s", args, code, stderr.String())
				}
				files := map[string][]byte{}
				filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
					if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), ".") {
						return err // resume marks are skipped: they say when
					}
					b, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					files[strings.TrimPrefix(p, dir)] = b
					return nil
				})
				if len(files) == 0 {
					t.Fatalf("no output in %s", dir)
				}
				if round == 0 {
					first = files
					continue
				}
				if len(files) != len(first) {
					t.Fatalf("round %d wrote %d files, the first %d", round, len(files), len(first))
				}
				for name, b := range files {
					if !bytes.Equal(b, first[name]) {
						t.Errorf("round %d: %s differs from the first round's", round, name)
					}
				}
			}
		})
	}
}
