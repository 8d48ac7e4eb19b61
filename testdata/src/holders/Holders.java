package holders;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Builds objects held in known ways, then dumps its own heap (garbage
 * included) to the file named by its argument. The paths tests of
 * hprof2pprof know each way by hand:
 *   - 100 StaticLeaf in a static list (Holders.STATIC_LIST);
 *   - 10 TlValue in a map a thread-local holds, in thread "holder-thread";
 *   - 5 Listener registered in a static registry (Registry.LISTENERS);
 *   - a cycle CycleA <-> CycleB held by a static (Holders.CYCLE), and a
 *     cycle GarbageA <-> GarbageB that nothing holds;
 *   - a WeakOnly that only a WeakReference holds (Holders.WEAK).
 * Usage: java -cp DIR holders.Holders OUT.hprof
 */
public final class Holders {
    static final List<StaticLeaf> STATIC_LIST = new ArrayList<>();
    static final ThreadLocal<Map<String, TlValue>> LOCAL = new ThreadLocal<>();
    static CycleA CYCLE;
    static WeakReference<WeakOnly> WEAK;

    static final class StaticLeaf { final int n; StaticLeaf(int n) { this.n = n; } }
    static final class TlValue { final long n; TlValue(long n) { this.n = n; } }
    static final class Listener { final String name; Listener(String name) { this.name = name; } }
    static final class Registry {
        static final List<Listener> LISTENERS = new ArrayList<>();
        static void register(Listener l) { LISTENERS.add(l); }
    }
    static final class CycleA { CycleB b; }
    static final class CycleB { CycleA a; }
    static final class GarbageA { GarbageB b; }
    static final class GarbageB { GarbageA a; }
    static final class WeakOnly { final byte[] payload = new byte[64]; }

    public static void main(String[] args) throws Exception {
        build();
        CountDownLatch ready = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            fillLocal();
            ready.countDown();
            try { done.await(); } catch (InterruptedException e) { }
        }, "holder-thread");
        t.setDaemon(true);
        t.start();
        ready.await();
        garbage();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], false);
        done.countDown();
        t.join();
        System.out.println("DUMPED " + args[0]);
    }

    static void build() {
        for (int i = 0; i < 100; i++) STATIC_LIST.add(new StaticLeaf(i));
        for (int i = 0; i < 5; i++) Registry.register(new Listener("listener-" + i));
        CycleA a = new CycleA();
        a.b = new CycleB();
        a.b.a = a;
        CYCLE = a;
        WEAK = new WeakReference<>(new WeakOnly());
    }

    static void fillLocal() {
        Map<String, TlValue> m = new HashMap<>();
        for (int i = 0; i < 10; i++) m.put("k" + i, new TlValue(i));
        LOCAL.set(m);
    }

    static void garbage() {
        GarbageA g = new GarbageA();
        g.b = new GarbageB();
        g.b.a = g;
    }
}
