package agent

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// The recorded session of the corpus (testdata/README-agent-streams.md):
// bytes [0, 69696) came unasked; the answers to CPU SAMPLES, CPU SAMPLES
// and ALLOC SITES end at 74271, 74787 and 224625; the exit dump follows.
const commandsRecording = "../testdata/net-commands.cpuwork.jdk17.hprof.raw"

var recordedAnswers = []answer{{cmdCPUSamples, 74271}, {cmdCPUSamples, 74787}, {cmdAllocSites, 224625}}

const unasked = 69696

type answer struct {
	cmd byte
	end int
}

// command is one command as the fake JVM received it.
type command struct {
	tag    byte
	serial uint32
	body   []byte
}

// fakeJVM replays a real agent's recorded bytes to the server, pacing
// them, and answers the server's commands with the recorded answers in
// their order; a command of another kind than the next recorded answer
// gets no answer (the recording has none). When the answers are used up,
// the next CPU SAMPLES command makes it "exit": it sends the recorded
// exit dump and closes.
type fakeJVM struct {
	data    []byte
	answers []answer
	// stopAt, when > 0, cuts the connection after that many bytes, at
	// whatever point of a record it falls.
	stopAt int
	// unasked is how much is sent before any command.
	unasked int
	// noExit keeps the connection open when the answers are used up.
	noExit bool

	mu       sync.Mutex
	commands []command
}

func loadRecording(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newCommandsJVM(t testing.TB) *fakeJVM {
	return &fakeJVM{data: loadRecording(t, commandsRecording), answers: recordedAnswers, unasked: unasked}
}

// run connects to addr and plays the session; it returns when the
// session is over (or the server closed the connection).
func (f *fakeJVM) run(addr string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer func() {
		// Exit like a process whose last bytes must arrive: half-close,
		// then read what the server still sends until it closes. Closing
		// with unread commands in the buffer would reset the connection
		// and can drop the bytes in flight (see docs/agent.md).
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			io.Copy(io.Discard, c)
		}
		c.Close()
	}()
	pos := 0
	send := func(to int) error {
		if f.stopAt > 0 && to > f.stopAt {
			to = f.stopAt
		}
		for pos < to {
			n := min(to-pos, 8192)
			if _, err := c.Write(f.data[pos : pos+n]); err != nil {
				return err
			}
			pos += n
			time.Sleep(200 * time.Microsecond) // pace like a JVM's buffered writes
		}
		if f.stopAt > 0 && pos >= f.stopAt {
			return io.EOF
		}
		return nil
	}
	if err := send(f.unasked); err != nil || pos == len(f.data) {
		return ignoreEOF(err) // everything sent: the JVM exits
	}
	next := f.answers
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return ignoreEOF(err)
		}
		n := binary.BigEndian.Uint32(hdr[5:])
		if n > 64 {
			return fmt.Errorf("command body of %d bytes", n)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(c, body); err != nil {
			return ignoreEOF(err)
		}
		f.mu.Lock()
		f.commands = append(f.commands, command{hdr[0], binary.BigEndian.Uint32(hdr[1:]), body})
		f.mu.Unlock()
		switch {
		case len(next) > 0 && hdr[0] == next[0].cmd:
			if err := send(next[0].end); err != nil {
				return ignoreEOF(err)
			}
			next = next[1:]
		case len(next) == 0 && hdr[0] == cmdCPUSamples && !f.noExit:
			return ignoreEOF(send(len(f.data))) // the exit dump, then close
		}
	}
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

func (f *fakeJVM) received() []command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]command(nil), f.commands...)
}

// checkCommands checks the first round of commands byte for byte against
// the protocol: CPU SAMPLES (u2 0, u4 0.0f), CONTROL 0x0005, ALLOC SITES
// (u2 0, u4 0.0f), serials counting up from 1.
func checkCommands(t *testing.T, got []command) {
	t.Helper()
	want := []command{
		{cmdCPUSamples, 1, []byte{0, 0, 0, 0, 0, 0}},
		{cmdControl, 2, []byte{0, 5}},
		{cmdAllocSites, 3, []byte{0, 0, 0, 0, 0, 0}},
	}
	if len(got) < len(want) {
		t.Fatalf("fake JVM received %d commands, want at least %d", len(got), len(want))
	}
	for i, w := range want {
		if g := got[i]; g.tag != w.tag || g.serial != w.serial || !bytes.Equal(g.body, w.body) {
			t.Errorf("command %d: tag 0x%02x serial %d body %x, want tag 0x%02x serial %d body %x", i+1, g.tag, g.serial, g.body, w.tag, w.serial, w.body)
		}
	}
}
