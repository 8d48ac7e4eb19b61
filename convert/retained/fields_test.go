package retained

import "testing"

// TestSlotNames: each kind of slot gets its name; an unset slot (a
// record whose field bytes the writer left out) is not taken for a static.
func TestSlotNames(t *testing.T) {
	fn := &fieldNames{classes: []layout{{name: "java.lang.Object[]"}, {name: "corpus.Oom"}},
		statics: map[uint64]string{1<<32 | 2: "LEAK"}, cache: map[uint64][2]string{}}
	for _, c := range []struct {
		cls         uint32
		slot        int32
		class, want string
	}{
		{0, slotElement, "java.lang.Object[]", "[*]"},
		{1 | classObjFlag, slotStatic0 - 2, "corpus.Oom", "LEAK"},
		{1 | classObjFlag, slotLoader, "corpus.Oom", "<classloader>"},
		{1, slotUnset, "corpus.Oom", "<reference>"},
	} {
		if class, field := fn.name(c.cls, c.slot); class != c.class || field != c.want {
			t.Errorf("class %x slot %d: %s.%s, want %s.%s", c.cls, c.slot, class, field, c.class, c.want)
		}
	}
}
