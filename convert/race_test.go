//go:build race

package convert

// raceEnabled: the race detector's shadow memory is several times the
// program's own, more than a tight memory cgroup leaves (see
// TestRetainedUnderMemoryCgroup).
const raceEnabled = true
