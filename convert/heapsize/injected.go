package heapsize

// The JVM adds fields to some of the JDK's own classes that no class
// file declares, so a heap dump, which lists the declared fields, does
// not show them; and it pads the fields the JDK marks @Contended. Both
// are fixed by HotSpot's sources for its own classes, so they are known
// here by class name, and told apart across JDK versions by the fields
// the class does declare.

// ContendedPadding is the padding HotSpot puts before a @Contended class
// or group of fields, and once after the last (-XX:ContendedPaddingWidth,
// 128 by default).
const ContendedPadding = 128

// jvmAdds is what the JVM adds to one class: references, intptr-sized
// words (a 64-bit JVM's are 8 bytes), other primitive bytes, and
// @Contended padding blocks.
type jvmAdds struct {
	refs, words, prims, pads int
}

// padded returns the padding blocks of a class with @Contended groups:
// one before each group, one after the last.
func padded(groups int) jvmAdds { return jvmAdds{pads: groups + 1} }

// injected lists the JDK classes the JVM adds to, as JDK 8 to 25 do;
// where the additions changed, the fields a class declares tell the
// versions apart. The @Contended classes and fields are those the JDK's
// own annotations name (java.base of JDK 17 and 25).
var injected = map[string]func(declares func(string) bool) jvmAdds{
	// klass, array_klass; oop_size, static_oop_field_count;
	// protection_domain, source_file, and signers until Class declares
	// it (JDK 25)
	"java.lang.Class": func(declares func(string) bool) jvmAdds {
		if declares("signers") {
			return jvmAdds{refs: 2, words: 2, prims: 8}
		}
		return jvmAdds{refs: 3, words: 2, prims: 8}
	},
	// loader_data
	"java.lang.ClassLoader": func(func(string) bool) jvmAdds { return jvmAdds{words: 1} },
	// module_entry
	"java.lang.Module": func(func(string) bool) jvmAdds { return jvmAdds{words: 1} },
	// vmindex, and vmtarget before ResolvedMethodName took it (JDK 11)
	"java.lang.invoke.MemberName": func(declares func(string) bool) jvmAdds {
		if declares("method") {
			return jvmAdds{words: 1}
		}
		return jvmAdds{words: 2}
	},
	// vmtarget, and vmholder until the class declares it
	"java.lang.invoke.ResolvedMethodName": func(declares func(string) bool) jvmAdds {
		if declares("vmholder") {
			return jvmAdds{words: 1}
		}
		return jvmAdds{refs: 1, words: 1}
	},
	// vmdependencies; last_cleanup: in the call site's context object,
	// or, once the call site has none (JDK 25), in the call site
	"java.lang.invoke.MethodHandleNatives$CallSiteContext": func(func(string) bool) jvmAdds { return jvmAdds{words: 1, prims: 8} },
	"java.lang.invoke.CallSite": func(declares func(string) bool) jvmAdds {
		if declares("context") {
			return jvmAdds{}
		}
		return jvmAdds{words: 1, prims: 8}
	},
	// during_unsafe_access
	"java.lang.InternalError": func(func(string) bool) jvmAdds { return jvmAdds{prims: 1} },
	// version (a short)
	"java.lang.StackFrameInfo": func(func(string) bool) jvmAdds { return jvmAdds{prims: 2} },
	// Up to JDK 18, @Contended("tlr") threadLocalRandomSeed, -Probe and
	// -SecondarySeed; since JDK 19 (the class declares holder), no
	// padding but 15 bytes the JVM keeps in every thread (a word, an int,
	// a short and a byte: the holes between its declared fields).
	"java.lang.Thread": func(declares func(string) bool) jvmAdds {
		switch {
		case declares("holder"):
			return jvmAdds{words: 1, prims: 7}
		case declares("threadLocalRandomSeed"):
			return padded(1)
		}
		return jvmAdds{}
	},
	// a word the JVM keeps in every virtual thread (an 8-byte hole among
	// its declared fields in JDK 25)
	"java.lang.VirtualThread": func(func(string) bool) jvmAdds { return jvmAdds{words: 1} },
	// @Contended("fjpctl") ctl (and parallelism)
	"java.util.concurrent.ForkJoinPool": func(func(string) bool) jvmAdds { return padded(1) },
	// @Contended("w") top, source, nsteals (and phase, stackPred, parking)
	"java.util.concurrent.ForkJoinPool$WorkQueue": func(func(string) bool) jvmAdds { return padded(1) },
	// @Contended classes: padding before their fields and after
	"java.util.concurrent.ConcurrentHashMap$CounterCell": func(func(string) bool) jvmAdds { return padded(1) },
	"java.util.concurrent.Exchanger$Node":                func(func(string) bool) jvmAdds { return padded(1) },
	"java.util.concurrent.Exchanger$Slot":                func(func(string) bool) jvmAdds { return padded(1) },
	"java.util.concurrent.atomic.Striped64$Cell":         func(func(string) bool) jvmAdds { return padded(1) },
	// a @Contended class with a @Contended("c") group
	"java.util.concurrent.SubmissionPublisher$BufferedSubscription": func(func(string) bool) jvmAdds { return padded(2) },
}

// Injected is what a JVM whose IDs are idSize bytes adds to the
// instances of class (by its Java name) beyond the fields it declares
// (declares reports whether the class declares a field of that name):
// references, and primitive bytes with the @Contended padding; contended
// says the class has such padding, after which HotSpot starts a
// subclass's fields on an 8-byte boundary.
func Injected(idSize int, class string, declares func(name string) bool) (l Layout, contended bool) {
	f := injected[class]
	if f == nil {
		return Layout{}, false
	}
	a := f(declares)
	return Layout{Refs: a.refs, Prims: a.words*idSize + a.prims + a.pads*ContendedPadding}, a.pads > 0
}
