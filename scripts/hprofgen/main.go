// Command hprofgen writes a synthetic HPROF heap dump of a given size or
// object count, for measuring hprof2pprof at scales no test JVM reaches:
//
//	go run ./scripts/hprofgen -size 16G -seed 1 -o big.hprof [-gz]
//	go run ./scripts/hprofgen -objects 2200000000 -seed 1 -o huge.hprof
//
// The dump is a JDK 21 HotSpot's as `jcmd GC.heap_dump` writes it
// (JAVA PROFILE 1.0.2, 8-byte IDs, HEAP DUMP SEGMENTs and HEAP DUMP END;
// compressed oops, told by jdk.internal.misc.Unsafe's statics): the JDK
// classes its shapes use, many generated classes, threads with stacks,
// and, held by roots of every kind, strings with their byte arrays,
// HashMaps, ArrayLists of strings, long linked chains, deep trees, big
// object arrays and primitive arrays. The same seed and flags give the
// same bytes. Memory stays bounded whatever the size: the file is
// written as it is laid out, in 4 MiB pieces (with -gz, gzip members
// of 1 MiB each, as the JDK's -gz writes).
//
// Beside FILE it writes FILE.manifest.tsv: a line class<TAB>count<TAB>bytes
// for each class (the heap sizes worked out by the generator's own
// layout rules, classes.go), then, after "# retained", a line
// root kind<TAB>objects<TAB>bytes: what the objects each root kind holds
// retain (the shapes share nothing, so that is exact); the unreachable
// objects (-unreachable) are in the class lines, and on a comment line
// "# unreachable" of their own.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hprofgen:", err)
		os.Exit(1)
	}
}

type config struct {
	size, objects int64
	seed          uint64
	out           string
	gz            bool
	classes       int
	threads       int
	unreachable   float64
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("hprofgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "", "stop once the HPROF (uncompressed) is this big: bytes, or with K, M, G, T (powers of 1024)")
	fs.Int64Var(&c.objects, "objects", 0, "stop once this many objects are written (class objects included)")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed: the same seed and flags give the same bytes")
	fs.StringVar(&c.out, "o", "", "output `FILE` (the manifest goes to FILE.manifest.tsv)")
	fs.BoolVar(&c.gz, "gz", false, "write gzip: members of 1 MiB, as the JDK's -gz")
	fs.IntVar(&c.classes, "classes", 1000, "generated classes")
	fs.IntVar(&c.threads, "threads", 16, "threads")
	fs.Float64Var(&c.unreachable, "unreachable", 0, "the share of objects (0 to 0.999) written as unreachable java.lang.Object instances, 25 bytes each: the least disk for an object count")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if *size != "" {
		n, err := parseSize(*size)
		if err != nil {
			return c, err
		}
		c.size = n
	}
	switch {
	case c.out == "":
		return c, errors.New("-o FILE is required")
	case (c.size > 0) == (c.objects > 0):
		return c, errors.New("give one of -size and -objects")
	case c.classes < 1 || c.classes > 50000:
		return c, errors.New("-classes: 1 to 50000")
	case c.threads < 1 || c.threads > 10000:
		return c, errors.New("-threads: 1 to 10000")
	case !(c.unreachable >= 0 && c.unreachable <= 0.999):
		return c, errors.New("-unreachable: 0 to 0.999")
	}
	return c, nil
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	if i := strings.IndexAny(s, "KMGTkmgt"); i >= 0 && i == len(s)-1 {
		mult = int64(1) << (10 * (1 + strings.IndexByte("KMGT", strings.ToUpper(s[i:])[0])))
		s = s[:i]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("-size %q: want a positive number of bytes, K, M, G or T", s)
	}
	return int64(f * float64(mult)), nil
}

func run(args []string, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	f, err := os.Create(c.out)
	if err != nil {
		return err
	}
	defer f.Close()
	o := newOut(f, c.gz)
	g := newGen(o, c.seed, c.classes, c.threads)
	g.unreachable = c.unreachable
	generate(g, c)
	if o.err != nil {
		return o.err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := writeManifest(c.out+".manifest.tsv", g, o.size()); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stderr, "hprofgen: %s: %d bytes of HPROF, %d objects in %.1f s (%.0f MB/s)\n",
		c.out, o.size(), g.objects, secs, float64(o.size())/secs/1e6)
	return nil
}

// generate writes the whole dump.
func generate(g *gen, c config) {
	g.preamble()
	g.classDumps()
	g.writeThreads()
	for first := true; first || (c.size > 0 && g.o.size() < c.size) || (c.objects > 0 && g.objects < c.objects); first = false {
		if g.o.err != nil {
			return
		}
		g.round(first)
	}
	g.o.closeSegment()
	g.o.end(g.o.begin(tagHeapEnd))
	g.o.flushGz(true)
}

// writeManifest writes what g wrote: per class, then per root kind.
func writeManifest(path string, g *gen, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# hprofgen: %d objects, %d bytes of HPROF; heap sizes: header %d, references %d, array header %d, 8-byte alignment\n",
		g.objects, size, header, refSize, arrayBase)
	fmt.Fprintf(w, "# class\tcount\tbytes\n")
	var lines []string
	var n, b int64
	for c, t := range g.perClass {
		lines = append(lines, fmt.Sprintf("%s\t%d\t%d\n", c.java, t.count, t.bytes))
		n, b = n+t.count, b+t.bytes
	}
	sort.Strings(lines)
	for _, l := range lines {
		w.WriteString(l)
	}
	fmt.Fprintf(w, "# total\t%d\t%d\n# retained\n", n, b)
	lines = lines[:0]
	for k, t := range g.retained {
		if k == unreachable {
			fmt.Fprintf(w, "# unreachable\t%d\t%d\n", t.count, t.bytes)
			continue
		}
		lines = append(lines, fmt.Sprintf("%s\t%d\t%d\n", rootNames[k], t.count, t.bytes))
	}
	sort.Strings(lines)
	for _, l := range lines {
		w.WriteString(l)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
