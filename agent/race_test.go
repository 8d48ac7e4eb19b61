//go:build race

package agent

// raceEnabled: the race detector slows decoding ~10x; load tests shrink.
const raceEnabled = true
