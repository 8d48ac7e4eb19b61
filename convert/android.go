package convert

// Android heap dumps ("JAVA PROFILE 1.0.3", written by ART and Dalvik)
// differ from HotSpot's in what a CLASS DUMP's instance size means:
// Android writes the real object size (java.lang.Object is 8 bytes: the
// class and monitor words, which ART even lists as the fields
// shadow$_klass_ and shadow$_monitor_), HotSpot writes only the bytes
// of the field values and 0 for java.lang.Object.

// newSizeModel reports whether the CLASS DUMP instance sizes are object
// sizes (java.lang.Object's is non-zero), as VisualVM's heap library
// decides too. Then an instance's shallow size is its class's instance
// size as written, unaligned; arrays keep the header model.
func (h *heapDump) newSizeModel() bool { return h.objectSize != 0 }
