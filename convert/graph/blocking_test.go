package graph

import "testing"

func TestBlockingLeaf(t *testing.T) {
	cases := []struct {
		f    Frame
		want bool
	}{
		{Frame{Kind: KindMethod, Class: "sun.nio.ch.Net", Method: "accept"}, true},
		{Frame{Kind: KindMethod, Class: "sun.nio.ch.SocketDispatcher", Method: "read0"}, true},
		{Frame{Kind: KindMethod, Class: "sun.nio.ch.EPoll", Method: "wait"}, true},
		{Frame{Kind: KindMethod, Class: "java.net.SocketInputStream", Method: "socketRead0"}, true},
		{Frame{Kind: KindMethod, Class: "CpuWork", Method: "fib"}, false},
		{Frame{Kind: KindMethod, Class: "java.lang.Object", Method: "wait"}, false},
		// A class leaf that happens to share the name is not a method.
		{Frame{Kind: KindClass, Class: "sun.nio.ch.Net.accept"}, false},
	}
	for _, c := range cases {
		if got := BlockingLeaf(c.f); got != c.want {
			t.Errorf("BlockingLeaf(%s) = %v, want %v", c.f.Function(), got, c.want)
		}
	}
}
