package agent

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDaemonSession: a daemon configured to listen and write pprof files
// takes a recorded hprof agent session through its spill queue into
// OutDir, and Wait returns once the context ends, having logged the
// counters.
func TestDaemonSession(t *testing.T) {
	out, logs := t.TempDir(), &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := Start(ctx, DaemonConfig{
		Listen:   &Config{Addr: "127.0.0.1:0", Interval: 100 * time.Millisecond},
		Labels:   map[string]string{"env": "test"},
		OutDir:   out,
		Timeout:  time.Second,
		SpillDir: filepath.Join(out, ".spill"),
		Logger:   slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Addr() == nil {
		t.Fatal("no listening address")
	}
	jvm := newCommandsJVM(t)
	if err := jvm.run(d.Addr().String()); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := d.Wait(); err != nil {
		t.Fatal(err)
	}
	checkCommands(t, jvm.received())
	files, _ := filepath.Glob(filepath.Join(out, "*", "cpu-*.pb.gz"))
	if len(files) == 0 {
		t.Errorf("no cpu windows in %s", out)
	}
	if !strings.Contains(logs.String(), "msg=exit metrics.connections=1") {
		t.Errorf("no exit line with the counters:\n%s", logs)
	}
}

// TestDaemonStartErrors: what keeps a daemon from starting is a
// *StartError naming the path at fault, and whether the configuration
// is wrong or the machine refused.
func TestDaemonStartErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		name   string
		cfg    DaemonConfig
		path   string
		config bool
	}{
		{"out dir under a file", DaemonConfig{OutDir: filepath.Join(file, "out"), SpillDir: dir}, filepath.Join(file, "out"), false},
		{"spill dir under a file", DaemonConfig{OutDir: dir, SpillDir: filepath.Join(file, "spill")}, filepath.Join(file, "spill"), false},
		{"address in use", DaemonConfig{Listen: &Config{Addr: busy.Addr().String()}, OutDir: dir, SpillDir: dir}, busy.Addr().String(), false},
		{"no exporter", DaemonConfig{Listen: &Config{Addr: "127.0.0.1:0"}, SpillDir: dir}, "", true},
	} {
		_, err := Start(context.Background(), c.cfg)
		var se *StartError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v, want a *StartError", c.name, err)
			continue
		}
		if se.Path != c.path || se.Config != c.config {
			t.Errorf("%s: path %q config %v, want %q %v (%v)", c.name, se.Path, se.Config, c.path, c.config, se.Err)
		}
	}
}
