// ManyClasses defines N tiny classes (gen.C0 … gen.C<N-1>, default 20000)
// at run time, initialises them so a debugger sees them prepared, keeps them
// reachable and prints READY. The class files are built here byte by byte:
// each is an empty class extending java.lang.Object (no members), which the
// JVM accepts without verification work. The proxy's benchmarks use it as a
// JVM whose AllClasses reply is large.
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

public class ManyClasses {
    static final List<Class<?>> kept = new ArrayList<>();

    static final class Loader extends ClassLoader {
        Loader() { super(ManyClasses.class.getClassLoader()); }
        Class<?> define(String name, byte[] b) { return defineClass(name, b, 0, b.length); }
    }

    static byte[] classFile(String internalName) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bos);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);  // minor
        out.writeShort(52); // major: Java 8
        out.writeShort(5);  // constant pool count (entries 1..4)
        out.writeByte(7);   // #1 Class -> #2
        out.writeShort(2);
        out.writeByte(1);   // #2 Utf8 this name
        out.writeUTF(internalName);
        out.writeByte(7);   // #3 Class -> #4
        out.writeShort(4);
        out.writeByte(1);   // #4 Utf8 java/lang/Object
        out.writeUTF("java/lang/Object");
        out.writeShort(0x0021); // ACC_PUBLIC | ACC_SUPER
        out.writeShort(1);      // this
        out.writeShort(3);      // super
        out.writeShort(0);      // interfaces
        out.writeShort(0);      // fields
        out.writeShort(0);      // methods
        out.writeShort(0);      // attributes
        out.flush();
        return bos.toByteArray();
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        Loader loader = new Loader();
        for (int i = 0; i < n; i++) {
            String name = "gen.C" + i;
            Class<?> c = loader.define(name, classFile(name.replace('.', '/')));
            Class.forName(name, true, loader);
            kept.add(c);
        }
        System.out.println("READY " + kept.size());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
