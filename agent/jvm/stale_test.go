package jvm

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// TestStalePerfData: a JVM killed with SIGKILL leaves its performance
// data file behind, and a later process of its PID (here a sleep, given
// a copy of a live JVM's file) must not be listed or described as that
// JVM; the live JVM still is.
func TestStalePerfData(t *testing.T) {
	j := jvmtest.Start(t, jvmtest.Spec{Home: jvmtest.Home(t, 17), JVMArgs: []string{"-Xmx32m"}, Args: []string{"park", "10"}})
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), "hsperfdata_"+me.Username)
	live, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(j.PID)))
	if err != nil {
		t.Fatalf("the JVM's own performance data: %v", err)
	}
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	stale := filepath.Join(dir, fmt.Sprint(sleep.Process.Pid))
	if err := os.WriteFile(stale, live, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale) })

	list, err := List()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, info := range list {
		switch info.PID {
		case sleep.Process.Pid:
			t.Errorf("a sleep with a dead JVM's performance data is listed as %+v", info)
		case j.PID:
			found = info.MainClass == "LiveHeap"
		}
	}
	if !found {
		t.Errorf("the live JVM (pid %d) is not listed as LiveHeap", j.PID)
	}
	tg, err := attach.Resolve(sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if p := PerfDataPath(tg); p != "" {
		t.Errorf("the sleep's performance data: %s, want none", p)
	}
	if info, err := Describe(tg); err != nil || info.MainClass == "LiveHeap" {
		t.Errorf("the sleep described as %+v (%v)", info, err)
	}
}
