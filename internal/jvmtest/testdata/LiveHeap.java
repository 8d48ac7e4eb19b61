import java.util.ArrayList;
import java.util.List;

/**
 * A heap with known contents for the live-capture tests.
 *
 *   park N      N Item objects (each with an int[4] and a String), N/2 Item[]
 *               pairs, then parks; prints "READY <pid>"
 *   gc N        as park, then runs System.gc() every 200 ms (old-generation triggers)
 *   leak        leaks 1 KiB byte[] chunks until OutOfMemoryError (for
 *               -XX:+HeapDumpOnOutOfMemoryError), prints "OOM-CAUGHT", exits 0
 *   leak-stay   as leak, but parks after "OOM-CAUGHT" instead of exiting
 */
public final class LiveHeap {
    static final class Item {
        final int id;
        final int[] values = new int[4];
        final String name;
        Item(int id) { this.id = id; this.name = "item-" + id; }
    }

    static final List<Object> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "park";
        if (mode.startsWith("leak")) {
            List<byte[]> leak = new ArrayList<>();
            try {
                for (;;) leak.add(new byte[1024]);
            } catch (OutOfMemoryError e) {
                leak = null;
                System.out.println("OOM-CAUGHT");
                System.out.flush();
            }
            if (mode.equals("leak-stay")) Thread.sleep(Long.MAX_VALUE);
            System.exit(0);
        }
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        for (int i = 0; i < n; i++) KEEP.add(new Item(i));
        for (int i = 0; i < n / 2; i++) KEEP.add(new Item[2]);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        if (mode.equals("gc")) {
            for (;;) {
                System.gc();
                Thread.sleep(200);
            }
        }
        Thread.sleep(Long.MAX_VALUE);
    }
}
