package graph

import "sort"

// blockingNatives lists native methods in which a thread waits for I/O or
// an event while the JVM still reports it RUNNABLE, so CPU samplers that
// only look at the thread state (the hprof agent's cpu=samples, and
// JVMTI-based samplers in general) count the wait as CPU time.
//
// Keys are "class.method" of the leaf frame. The list covers the JDK's
// socket, selector and pipe natives on Linux, macOS and Windows from
// JDK 8 to 25.
var blockingNatives = map[string]bool{
	// Server sockets: accept().
	"sun.nio.ch.Net.accept":                                      true,
	"sun.nio.ch.ServerSocketChannelImpl.accept0":                 true,
	"java.net.PlainSocketImpl.socketAccept":                      true,
	"java.net.DualStackPlainSocketImpl.accept0":                  true,
	"java.net.TwoStacksPlainSocketImpl.socketAccept":             true,
	"sun.nio.ch.UnixAsynchronousServerSocketChannelImpl.accept0": true,
	// Socket reads and connects.
	"sun.nio.ch.SocketDispatcher.read0":                                 true,
	"sun.nio.ch.SocketDispatcher.readv0":                                true,
	"sun.nio.ch.NioSocketImpl.park":                                     true,
	"sun.nio.ch.Net.connect0":                                           true,
	"sun.nio.ch.Net.poll":                                               true,
	"sun.nio.ch.Net.pollConnect":                                        true,
	"java.net.SocketInputStream.socketRead0":                            true,
	"java.net.PlainSocketImpl.socketConnect":                            true,
	"java.net.DualStackPlainSocketImpl.connect0":                        true,
	"sun.nio.ch.DatagramChannelImpl.receive0":                           true,
	"sun.nio.ch.DatagramDispatcher.read0":                               true,
	"java.net.PlainDatagramSocketImpl.receive0":                         true,
	"java.net.DualStackPlainDatagramSocketImpl.socketReceiveOrPeekData": true,
	// Selectors and event waits.
	"sun.nio.ch.EPoll.wait":                            true,
	"sun.nio.ch.EPoll.epollWait":                       true,
	"sun.nio.ch.EPollArrayWrapper.epollWait":           true,
	"sun.nio.ch.KQueue.poll":                           true,
	"sun.nio.ch.KQueue.keventPoll":                     true,
	"sun.nio.ch.KQueueArrayWrapper.kevent0":            true,
	"sun.nio.ch.PollSelectorImpl.poll":                 true,
	"sun.nio.ch.PollArrayWrapper.poll0":                true,
	"sun.nio.ch.WEPoll.wait":                           true,
	"sun.nio.ch.WindowsSelectorImpl$SubSelector.poll0": true,
	"sun.nio.ch.Iocp.getQueuedCompletionStatus":        true,
	// Pipes, terminals, process waits.
	"sun.nio.ch.FileDispatcherImpl.read0":             true, // blocks on pipes and stdin
	"java.io.FileInputStream.readBytes":               true, // blocks on pipes and stdin
	"java.io.FileInputStream.read0":                   true,
	"java.lang.ProcessHandleImpl.waitForProcessExit0": true,
	"java.lang.UNIXProcess.waitForProcessExit":        true,
	"java.lang.ProcessImpl.waitForInterruptibly":      true,
	"java.io.Console.readline":                        true,
	// Older and platform-specific variants.
	"java.net.PlainDatagramSocketImpl.peekData":          true,
	"java.net.TwoStacksPlainDatagramSocketImpl.receive0": true,
	"java.net.DualStackPlainSocketImpl.waitForConnect":   true,
	"sun.nio.ch.DevPollArrayWrapper.poll0":               true,
	"sun.nio.ch.FileDispatcherImpl.readv0":               true, // blocks on pipes and stdin
	"java.lang.ProcessImpl.waitForProcessExit":           true,
	"java.lang.ProcessImpl.waitForInterruptEvent":        true,
}

// BlockingLeaf reports whether a stack whose leaf is f is a thread
// waiting in a native call that the JVM reports as RUNNABLE. Samples with
// such a leaf get the label state=blocked, so
// `go tool pprof -tagignore state=blocked` shows real CPU.
func BlockingLeaf(f Frame) bool {
	if f.Kind != KindMethod {
		return false
	}
	return blockingNatives[f.Class+"."+f.Method]
}

// BlockingNatives lists the methods BlockingLeaf knows, sorted, for docs
// and `info`.
func BlockingNatives() []string {
	out := make([]string, 0, len(blockingNatives))
	for k := range blockingNatives {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// BlockedState is the label of samples whose leaf is a blocking native.
var BlockedState = Label{Key: LabelState, Str: "blocked"}

// Blocked reports whether the stack's leaf is a blocking native
// (BlockingLeaf): its CPU samples get BlockedState.
func (g *Graph) Blocked(st StackID) bool {
	s := g.Stacks[st]
	return len(s) > 0 && BlockingLeaf(g.Frames[s[0]])
}
