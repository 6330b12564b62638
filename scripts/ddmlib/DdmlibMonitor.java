// A monitor on Google's ddmlib (25.2.2, Debian libandroid-ddms-java), public API only, for
// comparing ddmtui's monitor against it on the same device (scripts/bench-monitor-adb.sh).
//
// It does what a DDMS-like tool does to watch every VM of every device: client support on
// (AndroidDebugBridge.init(true)), a bridge to the adb server named by ANDROID_ADB_SERVER_PORT
// (createBridge), thread updates and heap updates (HPIF and HPSG at every GC) enabled on every
// Client as soon as it appears, and each Client's thread status (THST) requested at a fixed
// interval (requestThreadUpdate), like ddmtui's --thread-interval. After the given time it
// prints how many clients it saw and how many thread and heap updates arrived, then exits.
//
// Usage: java -cp <ddmlib.jar>:<common.jar>:<guava.jar>:. DdmlibMonitor ADB SECONDS [INTERVAL_MS]
//        (ADB: the adb binary, used only if no server answers on ANDROID_ADB_SERVER_PORT)

import com.android.ddmlib.AndroidDebugBridge;
import com.android.ddmlib.Client;
import com.android.ddmlib.DdmPreferences;
import com.android.ddmlib.IDevice;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

public class DdmlibMonitor {
    public static void main(String[] args) throws Exception {
        String adb = args[0];
        long seconds = Long.parseLong(args[1]);
        long interval = args.length > 2 ? Long.parseLong(args[2]) : 500;

        AtomicLong threadUpdates = new AtomicLong(), heapUpdates = new AtomicLong();
        AndroidDebugBridge.addClientChangeListener((client, mask) -> {
            if ((mask & Client.CHANGE_THREAD_DATA) != 0) threadUpdates.incrementAndGet();
            if ((mask & (Client.CHANGE_HEAP_DATA)) != 0) heapUpdates.incrementAndGet();
        });
        // New clients get thread and heap updates from the start, as in DDMS.
        DdmPreferences.setInitialThreadUpdate(true);
        DdmPreferences.setInitialHeapUpdate(true);
        AndroidDebugBridge.init(true);
        AndroidDebugBridge bridge = AndroidDebugBridge.createBridge(adb, false);

        Set<Client> enabled = Collections.newSetFromMap(new IdentityHashMap<>());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long next = System.nanoTime();
        int maxClients = 0;
        while (System.nanoTime() < end) {
            int clients = 0;
            for (IDevice d : bridge.getDevices()) {
                for (Client c : d.getClients()) {
                    clients++;
                    if (enabled.add(c)) {
                        c.setThreadUpdateEnabled(true);
                        c.setHeapUpdateEnabled(true);
                    }
                    c.requestThreadUpdate();
                }
            }
            maxClients = Math.max(maxClients, clients);
            next += interval * 1_000_000L;
            long sleep = (next - System.nanoTime()) / 1_000_000L;
            if (sleep > 0) Thread.sleep(sleep);
        }
        System.out.printf("ddmlib: clients=%d thread-updates=%d heap-updates=%d%n", maxClients,
                threadUpdates.get(), heapUpdates.get());
        AndroidDebugBridge.terminate();
        System.exit(0);
    }
}
