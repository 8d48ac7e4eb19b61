package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// Commands the hprof agent accepts on its socket (format document,
// "Socket Connection and Communication"): u1 tag, u4 serial, u4 body
// length, body.
const (
	cmdAllocSites = 0x03 // u2 flags, u4 cutoff (float)
	cmdCPUSamples = 0x07 // u2 unused, u4 cutoff (float)
	cmdControl    = 0x08 // u2 sub-command
	ctlClearCPU   = 0x0005
)

// conn is one JVM connection.
type conn struct {
	s      *Server
	c      net.Conn
	remote string
	log    *slog.Logger
	serial uint32
}

func (s *Server) serveConn(ctx context.Context, nc net.Conn) {
	defer nc.Close()
	c := &conn{s: s, c: nc, remote: nc.RemoteAddr().String()}
	c.log = s.log.With("remote", c.remote)
	c.log.Info("JVM connected")
	br := bufio.NewReaderSize(&countingReader{r: nc, n: &s.m.Bytes}, 64<<10)
	// The header (and, for binary streams, the first records the reader
	// buffers with it) must come within HeaderTimeout.
	nc.SetReadDeadline(time.Now().Add(s.cfg.HeaderTimeout))
	head, err := br.Peek(19)
	switch {
	case err != nil:
		c.fail("no HPROF header", err)
	case !bytes.HasPrefix(head, []byte("JAVA PROFILE 1.0.")):
		c.fail("not an hprof agent stream", fmt.Errorf("starts with %q", head))
	case head[18] == 0:
		c.serveBinary(ctx, br)
	default:
		c.serveText(ctx, br)
	}
}

// fail logs why a connection is closed for its content.
func (c *conn) fail(why string, err error) {
	c.s.m.Failed.Add(1)
	c.log.Warn("closing connection: "+why, "err", err)
}

func (c *conn) serveBinary(ctx context.Context, br io.Reader) {
	s := c.s
	st, err := convert.NewStream(br, convert.StreamOptions{
		Options:   convert.Options{Interval: s.cfg.CPUInterval, RawNames: s.cfg.RawNames},
		MaxRecord: s.cfg.MaxRecord,
		MaxState:  s.cfg.MaxState,
	})
	c.c.SetReadDeadline(time.Time{})
	if err != nil {
		c.fail("bad header", err)
		return
	}
	jvm := jvmName(c.remote, st.Header().Time)
	c.log = c.log.With("jvm", jvm)
	out := make(chan *convert.Window, 8)
	exported := make(chan struct{})
	go func() {
		defer close(exported)
		for w := range out {
			s.export(c, jvm, w.Seq, w.Start, w.End, w)
		}
	}()

	stopTicks, ticksDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ticksDone)
		t := time.NewTicker(s.cfg.Interval)
		defer t.Stop()
		for {
			select {
			case <-stopTicks:
				return
			case <-ctx.Done():
				// Shutdown: one last round of questions, and a bound on
				// how long the reader waits for the answers.
				if err := c.ask(st); err != nil {
					c.log.Debug("last command not sent", "err", err)
				}
				c.c.SetReadDeadline(time.Now().Add(s.cfg.Grace))
				return
			case <-t.C:
				if w := st.Flush(); w != nil {
					out <- w // answers of the last round that never completed
				}
				if err := c.ask(st); err != nil {
					c.log.Debug("command not sent", "err", err)
				}
			}
		}
	}()

	// On shutdown the ticker sends a last round of commands and sets a
	// read deadline: the loop ends at the JVM's EOF or at that deadline.
	for {
		w, err := st.Next()
		if w != nil {
			out <- w
		}
		if err != nil {
			c.ended(ctx, err, st.Offset())
			break
		}
	}
	close(stopTicks)
	<-ticksDone
	if w := st.Flush(); w != nil {
		out <- w // a JVM killed mid-window: what arrived
	}
	close(out)
	<-exported
	c.log.Info("connection closed", "bytes", st.Offset())
}

// ended logs why the stream ended.
func (c *conn) ended(ctx context.Context, err error, off int64) {
	var ne net.Error
	switch {
	case err == io.EOF:
		c.log.Info("JVM closed the connection")
	case ctx.Err() != nil && errors.As(err, &ne) && ne.Timeout():
		c.log.Info("shutdown: stopped waiting for the JVM", "grace", c.s.cfg.Grace)
	case errors.Is(err, hprof.ErrTruncated):
		c.log.Warn("stream ended inside a record (JVM killed?); what arrived was exported", "at_byte", off, "err", err)
	case errors.Is(err, hprof.ErrCorrupt), errors.Is(err, hprof.ErrUnsupported), errors.Is(err, convert.ErrLimit):
		c.fail("malformed stream", err)
	default:
		c.log.Warn("connection lost; what arrived was exported", "at_byte", off, "err", err)
	}
}

// ask sends one round of commands: CPU SAMPLES then a clear of the CPU
// counters when the agent samples CPU, ALLOC SITES when it tracks the
// heap (its CONTROL SETTINGS say which).
func (c *conn) ask(st *convert.Stream) error {
	flags, ok := st.Control()
	if !ok {
		return errors.New("no CONTROL SETTINGS yet")
	}
	var b []byte
	if flags&2 != 0 {
		b = c.command(b, cmdCPUSamples, []byte{0, 0, 0, 0, 0, 0}) // u2 0, u4 cutoff 0.0f
		b = c.command(b, cmdControl, []byte{0, ctlClearCPU})
	}
	if flags&1 != 0 {
		b = c.command(b, cmdAllocSites, []byte{0, 0, 0, 0, 0, 0}) // u2 flags 0, u4 cutoff 0.0f
	}
	if len(b) == 0 {
		return nil
	}
	c.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := c.c.Write(b)
	return err
}

func (c *conn) command(b []byte, tag byte, body []byte) []byte {
	c.serial++
	b = append(b, tag)
	b = binary.BigEndian.AppendUint32(b, c.serial)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// serveText reads a text (non format=b) stream to its end and exports
// it as one window: the text report is not cut into windows.
func (c *conn) serveText(ctx context.Context, br io.Reader) {
	s := c.s
	start := time.Now()
	c.c.SetReadDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { c.c.SetReadDeadline(time.Now().Add(s.cfg.Grace)) })
	defer stop()
	lr := &limitReader{r: br, n: s.cfg.MaxTextBytes}
	g, err := convert.Convert(context.Background(), lr, c.remote, convert.Options{Interval: s.cfg.CPUInterval, RawNames: s.cfg.RawNames})
	if lr.hit {
		c.fail("text stream too large", fmt.Errorf("%w: more than %d bytes", convert.ErrLimit, s.cfg.MaxTextBytes))
	}
	if err != nil {
		c.fail("text stream not readable", err)
		return
	}
	if g.Damage != nil {
		c.log.Warn("text stream ended early; what arrived was exported", "lost", g.Lost)
	}
	if len(g.Views) == 0 {
		c.log.Info("text stream closed without a dump")
		return
	}
	jvm := jvmName(c.remote, g.Source.Time)
	from := g.Source.Time
	if from.IsZero() {
		from = start
	}
	s.export(c, jvm, 1, from, time.Now(), &convert.Window{Graph: g})
}

// export hands one window to every exporter.
func (s *Server) export(c *conn, jvm string, seq int, start, end time.Time, cw *convert.Window) {
	w := &Window{JVM: jvm, Remote: c.remote, Attrs: maps.Clone(s.cfg.Labels), Seq: seq, Start: start, End: end, Graph: cw.Graph}
	note := fmt.Sprintf("hprof2pprof agent: JVM %s (remote %s), window %d, %s to %s", jvm, c.remote, seq,
		start.UTC().Format(time.RFC3339Nano), end.UTC().Format(time.RFC3339Nano))
	for _, k := range slices.Sorted(maps.Keys(w.Attrs)) {
		note += fmt.Sprintf(", %s=%s", k, w.Attrs[k])
	}
	for _, v := range w.Graph.Views {
		v.Comments = append(v.Comments, note)
		if v.Time.IsZero() { // a text session's dump: the connection's span
			v.Time, v.Duration = start, end.Sub(start)
		}
	}
	s.m.Windows.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ExportWait)
	defer cancel()
	for _, e := range s.cfg.Exporters {
		_, counts := e.(*Reliable)
		err := e.Export(ctx, w)
		switch {
		case err != nil && !counts:
			s.m.ExportFail.Add(1)
			c.log.Error("window not exported", "exporter", e.Name(), "window", seq, "err", err)
		case err == nil && !counts:
			s.m.Exported.Add(1)
		}
		if err == nil {
			c.log.Debug("window exported", "exporter", e.Name(), "window", seq)
		}
	}
}

// countingReader adds every byte read to a counter.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// limitReader ends the input after n bytes and remembers that it did.
type limitReader struct {
	r   io.Reader
	n   int64
	hit bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		l.hit = true
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
